#include "calibrate/step_trace.hpp"

#include <cmath>

#include "common/answer.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/numbers.hpp"

namespace mfusim::calibrate {

namespace {

// A field outside `known` is a typo or a format this version does not read: refused, naming what is known.
void refuse_unknown(const JsonFields& fields, std::initializer_list<const char*> known, const char* what) {
    for (const auto& item : fields.object().items()) {
        bool ok = false;
        for (const char* k : known) ok = ok || item.key() == k;
        if (!ok) fields.fail(item.key().c_str(), std::string("unknown field of ") + what);
    }
}

mfusim_request parse_request(const nlohmann::json& value, const std::string& origin, std::size_t index) {
    const std::string prefix = "requests[" + std::to_string(index) + "].";
    if (!value.is_object()) {
        throw Error(Status::config, origin + ": field 'requests[" + std::to_string(index) +
                                        "]': expected an object {\"new_tokens\": n, \"context\": c}");
    }
    JsonFields f(value, origin, prefix);
    refuse_unknown(f, {"new_tokens", "context", "flags", "no_output"}, "a request (new_tokens, context, flags)");
    mfusim_request r{};
    r.new_tokens = f.integer("new_tokens");
    if (r.new_tokens < 0) f.fail("new_tokens", "must not be negative, found " + std::to_string(r.new_tokens));
    r.context = f.optional_integer("context").value_or(0);
    if (r.context < 0) f.fail("context", "must not be negative, found " + std::to_string(r.context));
    const int64_t flags = f.optional_integer("flags").value_or(0);
    if (flags < 0 || (static_cast<uint64_t>(flags) & ~uint64_t{MFUSIM_REQUEST_NO_OUTPUT}) != 0) {
        f.fail("flags", "unknown bits in " + std::to_string(flags) + " (known: 1 = no output)");
    }
    r.flags = static_cast<uint32_t>(flags);
    if (f.optional_bool("no_output").value_or(false)) r.flags |= MFUSIM_REQUEST_NO_OUTPUT;
    return r;
}

void parse_header(const JsonFields& f, TraceHeader& header) {
    refuse_unknown(f, {"model", "gpu", "tp", "engine", "group"}, "the header (model, gpu, tp, engine, group)");
    header.model = f.optional_string("model");
    header.gpu = f.optional_string("gpu");
    header.engine = f.optional_string("engine");
    header.group = f.optional_string("group");
    header.tp = f.optional_integer("tp");
    // The estimator's own bound, checked here so that the message names the trace's line.
    if (header.tp && (*header.tp < 1 || *header.tp > 65536)) {
        f.fail("tp", "must be between 1 and 65536, found " + std::to_string(*header.tp));
    }
}

void parse_step(const JsonFields& f, StepTrace& trace, std::size_t line) {
    refuse_unknown(f, {"requests", "measured_us", "group"}, "a step (requests, measured_us, group)");
    TraceStep step;
    step.line = line;
    step.measured_us = f.number("measured_us");
    // Normal as well as positive: every error is a ratio against it, and 1e-320 would make them infinite.
    if (!is_usable_measurement(step.measured_us)) {
        f.fail("measured_us",
               "must be a positive time in microseconds (a normal number), found " + shortest_text(step.measured_us));
    }
    step.group = f.optional_string("group");
    // Looked up only once present: a const json's operator[] of a missing key reads past the object (found by the
    // step_trace fuzz target: a line with "measured_us" and no "requests").
    if (!f.present("requests")) f.fail("requests", "missing (required): an array of requests");
    const nlohmann::json& requests = f.object()["requests"];
    if (!requests.is_array()) f.fail("requests", "expected an array of requests");
    step.first_request = trace.requests.size();
    for (std::size_t i = 0; i < requests.size(); ++i) {
        trace.requests.push_back(parse_request(requests[i], f.origin(), i));
    }
    step.request_count = requests.size();
    trace.steps.push_back(std::move(step));
}

// parse_json locates errors within the text it was given (here one line, so line 1): moved to the file's line.
nlohmann::json parse_line(const std::string& text, const std::string& path, std::size_t line) {
    try {
        return parse_json(text, path);
    } catch (const Error& e) {
        std::string message = e.what();
        const std::string first_line = path + ":1:";
        if (message.rfind(first_line, 0) == 0) {
            message = path + ":" + std::to_string(line) + ":" + message.substr(first_line.size());
        } else if (message.rfind(path + ":", 0) == 0) {
            message = path + ":" + std::to_string(line) + message.substr(path.size());
        }
        throw Error(e.status(), message);
    }
}

}  // namespace

StepTrace parse_step_trace(const std::string& origin, std::string_view text) {
    StepTrace trace;
    trace.origin = origin;
    std::size_t position = 0, line = 0;
    std::string buffer;
    while (position < text.size()) {
        std::size_t end = text.find('\n', position);
        if (end == std::string_view::npos) end = text.size();
        std::string_view row = text.substr(position, end - position);
        position = end + 1;
        ++line;
        while (!row.empty() && (row.back() == '\r' || row.back() == ' ' || row.back() == '\t')) row.remove_suffix(1);
        while (!row.empty() && (row.front() == ' ' || row.front() == '\t')) row.remove_prefix(1);
        if (row.empty()) continue;
        buffer.assign(row);
        const nlohmann::json value = parse_line(buffer, origin, line);
        const std::string where = origin + ":" + std::to_string(line);
        if (!value.is_object()) {
            throw Error(Status::config, where +
                                            ": expected a step {\"requests\": [...], \"measured_us\": t} or a "
                                            "header {\"model\": ..., \"gpu\": ..., \"tp\": N, \"engine\": ...}");
        }
        JsonFields fields(value, where);
        if (fields.present("requests") || fields.present("measured_us")) {
            parse_step(fields, trace, line);
        } else if (trace.steps.empty()) {
            parse_header(fields, trace.header);
        } else {
            throw Error(Status::config, where +
                                            ": a header line (no 'requests') after the first step; the header "
                                            "must come first");
        }
    }
    return trace;
}

StepTrace read_step_trace(const std::string& path) {
    return parse_step_trace(path, read_file(path, kStepStreamLimit));
}

}  // namespace mfusim::calibrate
