// An engine's release as data: its version number, and the defaults that changed between releases (one row per
// changed default, each citing the release and pull request that changed it). A profile's `version` ("" when not
// named) picks the row that holds for it; docs/engine.md, "Defaults by engine version", lists the rows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mfusim::engines {

// A release number as vLLM, SGLang and TensorRT-LLM write theirs (PEP 440's public form): one to four dot-separated
// numbers, an optional pre-release (aN, bN, rcN, or .devN) and an optional post-release (.postN); a leading `v`
// is allowed. "0.14.0", "v0.18.0", "0.5.1.post1", "1.2.0rc6.post1". Ordered as PEP 440 orders them: 0.14.0.dev1 <
// 0.14.0rc1 < 0.14.0 < 0.14.0.post1 < 0.14.1.
struct EngineVersion {
    std::array<int64_t, 4> release{};  // missing components are 0: "0.14" is 0.14.0.0
    int8_t pre_kind = 4;               // 0 .dev, 1 a, 2 b, 3 rc, 4 none (a final release)
    int64_t pre = 0;                   // its number
    int64_t post = -1;                 // .postN; -1 none
    auto operator<=>(const EngineVersion&) const = default;
};

// The release `text` names, or nothing when it is not a release number (an image tag such as "gpt-oss-dev").
std::optional<EngineVersion> parse_engine_version(std::string_view text);
// The same, Error(config) naming `field` and the text when it is not one.
EngineVersion engine_version(std::string_view text, const std::string& field);

// One default of one engine from one release on: the latest row of an engine whose `since` is at or below a
// profile's version sets that field. A profile that names no version, or a version before the first row, keeps
// the built-in profile's value (docs/engine.md says which release that is).
struct VersionDefault {
    const char* engine;  // built-in profile it belongs to: "vllm", "sglang", "trtllm"
    const char* since;   // first release with this value
    const char* field;   // engine_fields() key
    bool value;
    const char* source;  // the release note and pull request, or the source file and function
};
const std::vector<VersionDefault>& version_defaults();

// The value of boolean `field` that version_defaults() gives engine `engine` at `version`, or nothing when no row
// applies (no version named, or before the first row).
std::optional<bool> version_default(const std::string& engine, const std::string& version, std::string_view field);

}  // namespace mfusim::engines
