# The command of a binding test whose toolchain was not found at configure time: fail, saying what to install.
# -DWHAT=<tool> -DHOW=<install hint>
message(FATAL_ERROR "FAIL: ${WHAT} was not found when CMake configured the build, so this binding cannot be tested. "
                    "Install it (${HOW}; see bindings/README.md, \"CI prerequisites\") and re-run cmake.")
