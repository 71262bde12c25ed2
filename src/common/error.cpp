#include "common/error.hpp"

namespace mfusim {

std::string located(const std::string& file, std::size_t line, std::size_t column, const std::string& what) {
    std::string out = file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) out += ':' + std::to_string(column);
    }
    return out + ": " + what;
}

}  // namespace mfusim
