// Keeping documentation examples honest: a test runs an example and checks
// that the markdown page shows exactly that code.
#pragma once

#include <string>
#include <vector>

namespace rw::test {

/// The lines strictly between `// [doc:NAME]` and `// [/doc:NAME]` in the file
/// at `path`, with their common indentation removed. Throws std::runtime_error
/// when the markers are missing.
std::string source_snippet(const std::string& path, const std::string& name);

/// The contents of each ```cpp fenced block of the markdown file at `path`.
std::vector<std::string> markdown_cpp_blocks(const std::string& path);

/// Empty when the markdown page at `page` has a ```cpp block that is exactly
/// the snippet NAME of the source file at `source`; otherwise a message that
/// names the page and gives the code it must show.
std::string missing_doc_block(const std::string& source, const std::string& name,
                              const std::string& page);

}  // namespace rw::test
