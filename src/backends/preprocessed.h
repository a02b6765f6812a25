// What the compiler sees of a candidate: its translation unit after `g++ -E` (or `nvcc -E`)
// with the compile's own flags. The static source rules judge this, not the raw text, because
// the preprocessor is where spellings stop mattering: line continuations are spliced, `%:` is
// `#`, macros that paste names are expanded, comments are gone. The candidate's own lines are
// told from the system headers' by the linemarkers, and the linemarkers are themselves checked
// against the compiler's `-H` list of the files it really opened: a candidate can print text
// that looks like a linemarker (a `#line` directive, or a macro expanding to `# 1 "x" 1`) to
// pass its own code off as a header's, and that is refused.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace evk {

// A file the candidate included directly, as the compiler resolved it.
struct DirectInclude {
  std::string path;    // as -H printed it ("/usr/include/c++/12/cmath", "/etc/passwd")
  std::string header;  // relative to the search folder holding it ("cmath"), or "" if none
  int line = 0;        // the candidate's line of the #include (0 when unknown)
};

struct PreprocessedSource {
  // The candidate's own lines after preprocessing, one per row; system headers' text is not
  // here. rows[i] came from the candidate's line row_line[i].
  std::vector<std::string> rows;
  std::vector<int> row_line;
  std::vector<DirectInclude> includes;
};

// How to preprocess: `argv` is the compile command without its source, output and link
// options (the compiler first); `source_name` the file name the candidate is written to.
struct PreprocessSpec {
  std::vector<std::string> argv;
  std::string source_name = "kernel.cpp";
  std::vector<std::string> list_includes = {"-H"};  // how to make the compiler list its files
  std::vector<std::string> extra_search_dirs;        // beyond g++'s own and the -I folders
  double timeout_s = 60;
  uint64_t address_space_bytes = 2ull << 30;
};

// The outcome: `source` when the preprocessor ran and its output is consistent; `refusal`
// (feedback for the candidate) when the output shows tampering with line information;
// neither when the preprocessor itself failed (the compile reports that error better).
struct PreprocessOutcome {
  std::optional<PreprocessedSource> source;
  std::optional<std::string> refusal;
  double wall_s = 0;
};

// Writes `src` into a private temporary folder and preprocesses it there.
PreprocessOutcome preprocess_candidate(const std::string& src, const PreprocessSpec& spec);

// The parsing half, for tests: `text` is the -E output, `h_list` the compiler's -H lines,
// `search_dirs` the include search folders (longest match names the header).
PreprocessOutcome parse_preprocessed(const std::string& text, const std::string& h_list,
                                     const std::string& source_name,
                                     const std::vector<std::string>& search_dirs);

}  // namespace evk
