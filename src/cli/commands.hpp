// The CLI's commands; each returns the process exit code (0 ok, 1 failed, 2 usage error).
#pragma once

#include <string>
#include <vector>

namespace mfusim::cli {

using Args = std::vector<std::string>;

int run_estimate(const Args& args);
int run_step(const Args& args);
int run_replay(const Args& args);
int run_tables(const Args& args);
int run_compare(const Args& args);
int run_models(const Args& args);
int run_gpus(const Args& args);
int run_serve(const Args& args);
int run_simulate(const Args& args);
int run_calibrate(const Args& args);
int run_sweep(const Args& args);
int run_plan(const Args& args);
int run_inspect(const Args& args);
int run_run(const Args& args);  // an experiment file's command (cmd_run.cpp)

// Runs `body`, turning library errors into "mfusim <command>: error: ..." on stderr and an exit code.
int report_errors(const std::string& command, int (*body)(const Args&), const Args& args);

}  // namespace mfusim::cli
