#include "cli/step_stream.hpp"

#include <simdjson.h>
#include <cstring>

#include "common/error.hpp"
#include "common/files.hpp"

namespace mfusim::cli {

// The DOM API dispatches to the best kernel for the CPU at run time (On-Demand is fixed at compile time and would
// fall back to the generic kernel without -march flags, which a portable build cannot use).
namespace dom = simdjson::dom;

struct StepStream::Impl {
    std::string path;
    std::string text;      // the stream, then SIMDJSON_PADDING spare bytes that simdjson may read past a line
    std::size_t size = 0;  // of the stream, without the padding
    dom::parser parser;
    std::size_t position = 0;
    std::size_t line_number = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(Status::parse, located(path, line_number, 0, what));
    }

    int64_t integer(dom::element value, const std::string& field) const {
        int64_t n = 0;
        if (value.get_int64().get(n) != simdjson::SUCCESS) fail("field '" + field + "': expected an integer");
        return n;
    }

    mfusim_request request(dom::element value, std::size_t index) const {
        mfusim_request r{};
        std::string where = "requests[" + std::to_string(index) + "]";
        dom::array pair;
        if (value.get_array().get(pair) == simdjson::SUCCESS) {
            std::size_t i = 0;
            for (dom::element element : pair) {
                if (i == 0) r.new_tokens = integer(element, where + "[0] (new_tokens)");
                if (i == 1) r.context = integer(element, where + "[1] (context)");
                ++i;
            }
            if (i != 2) fail(where + ": expected [new_tokens, context]");
            return r;
        }
        dom::object object;
        if (value.get_object().get(object) != simdjson::SUCCESS) {
            fail(where + ": expected an object or [new_tokens, context]");
        }
        bool has_tokens = false;
        for (dom::key_value_pair field : object) {
            if (field.key == "new_tokens") {
                r.new_tokens = integer(field.value, where + ".new_tokens");
                has_tokens = true;
            } else if (field.key == "context") {
                r.context = integer(field.value, where + ".context");
            } else if (field.key == "no_output") {
                bool b = false;
                if (field.value.get_bool().get(b) != simdjson::SUCCESS)
                    fail(where + ".no_output: expected true or false");
                if (b) r.flags |= MFUSIM_REQUEST_NO_OUTPUT;
            } else {
                fail(where + ": unknown field '" + std::string(field.key) +
                     "' (expected new_tokens, context, no_output)");
            }
        }
        if (!has_tokens) fail(where + ": missing new_tokens");
        return r;
    }

    void parse_line(const char* line, std::size_t length, StepChunk& chunk) {
        dom::element doc;
        // Safe without copying: the padded buffer runs on past this line, as simdjson's padding rule needs.
        if (auto error = parser.parse(line, length, false).get(doc)) {
            if (error == simdjson::MEMALLOC) {
                throw Error(Status::out_of_memory, located(path, line_number, 0, "out of memory parsing the line"));
            }
            fail(std::string("not valid JSON: ") + simdjson::error_message(error));
        }
        dom::array requests;
        dom::object object;
        if (doc.get_object().get(object) == simdjson::SUCCESS) {
            dom::element field;
            if (object.at_key("requests").get(field) != simdjson::SUCCESS ||
                field.get_array().get(requests) != simdjson::SUCCESS) {
                fail("field 'requests': missing or not an array");
            }
            // Any other key (a "gpu", a "tp") would be ignored and the step timed for the command's deployment.
            for (dom::key_value_pair other : object) {
                if (other.key != "requests") {
                    fail("unknown field '" + std::string(other.key) + "' (a step is {\"requests\": [...]})");
                }
            }
        } else if (doc.get_array().get(requests) != simdjson::SUCCESS) {
            fail("expected {\"requests\": [...]} or an array of requests");
        }
        std::size_t before = chunk.requests.size();
        std::size_t index = 0;
        for (dom::element element : requests) chunk.requests.push_back(request(element, index++));
        chunk.step_sizes.push_back(static_cast<int64_t>(chunk.requests.size() - before));
        chunk.line_numbers.push_back(line_number);
    }
};

StepStream::StepStream(const std::string& path) : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    impl_->text = read_file(path, kStepStreamLimit, simdjson::SIMDJSON_PADDING);
    impl_->size = impl_->text.size();
    impl_->text.append(simdjson::SIMDJSON_PADDING, ' ');  // within the capacity read_file reserved
}

StepStream::StepStream(std::string origin, std::string_view text) : impl_(std::make_unique<Impl>()) {
    impl_->path = std::move(origin);
    impl_->text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    impl_->text.append(text).append(simdjson::SIMDJSON_PADDING, ' ');
    impl_->size = text.size();
}

StepStream::~StepStream() = default;

std::size_t StepStream::bytes_total() const {
    return impl_->size;
}
std::size_t StepStream::bytes_read() const {
    return impl_->position;
}

bool StepStream::next(StepChunk& chunk, std::size_t max_steps) {
    Impl& s = *impl_;
    const char* data = s.text.data();
    const std::size_t size = s.size;
    std::size_t parsed = 0;
    while (s.position < size && parsed < max_steps) {
        const char* start = data + s.position;
        const void* newline = std::memchr(start, '\n', size - s.position);
        std::size_t length =
            newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - start) : size - s.position;
        s.position += length + (newline ? 1 : 0);
        ++s.line_number;
        std::size_t trimmed = length;
        while (trimmed > 0 && (start[trimmed - 1] == '\r' || start[trimmed - 1] == ' ' || start[trimmed - 1] == '\t'))
            --trimmed;
        if (trimmed == 0) continue;
        s.parse_line(start, trimmed, chunk);
        ++parsed;
    }
    return parsed > 0 || s.position < size;
}

}  // namespace mfusim::cli
