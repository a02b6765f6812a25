// The safetensors reader on malformed files: each defect is an Error naming the file and the
// defect, never a crash or a silently wrong tensor. And a round trip of a good file.
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
#include "core/tensor.h"
#include "core/temp_dir.h"

namespace evk {
namespace {

// A file: 8-byte little-endian header length, the JSON header, then the data section.
std::string file_of(const std::string& header, const std::string& data, int64_t claimed = -1) {
  uint64_t n = claimed < 0 ? header.size() : static_cast<uint64_t>(claimed);
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

struct Malformed {
  const char* what;
  std::string bytes;
  const char* says;  // a phrase the error must contain
};

TEST(Safetensors, MalformedFilesAreErrorsThatNameTheDefect) {
  const std::string f8(8, '\0');
  const std::vector<Malformed> cases = {
      {"short", "abc", "shorter than"},
      {"header past the end", file_of("{}", "", 4096), "header claims"},
      {"not JSON", file_of("{not json", ""), "not valid JSON"},
      {"not an object", file_of("[1,2]", ""), "not a JSON object"},
      {"unknown dtype", file_of(R"({"x":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", f8),
       "x"},
      {"negative dimension",
       file_of(R"({"x":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", f8), "negative"},
      {"offsets out of range",
       file_of(R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", f8), "offsets"},
      {"size not the shape's",
       file_of(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", f8), "holds 8 bytes"},
      {"overlap",
       file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f8),
       "overlap"},
      {"shape overflow",
       file_of(R"({"x":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
               f8),
       "x"},
      {"bad metadata", file_of(R"({"__metadata__":{"k":1}})", ""), "__metadata__"},
  };
  for (const auto& c : cases) {
    try {
      parse_safetensors(c.bytes, "case.safetensors");
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("case.safetensors"), std::string::npos) << c.what << ": " << m;
      EXPECT_NE(m.find(c.says), std::string::npos) << c.what << ": " << m;
    }
  }
}

TEST(Safetensors, RoundTripKeepsDtypeShapeBytesAndMetadata) {
  TempDir dir("evk-st-");
  SafetensorsFile f;
  Tensor t;
  t.dtype = DType::I64;
  t.shape = {2, 3};
  t.data.resize(6 * 8);
  for (int64_t i = 0; i < 6; ++i) t.as<int64_t>()[i] = i * 1000003 - 7;
  f.tensors["t"] = t;
  f.metadata["seed"] = "7";
  write_safetensors(dir.path() / "a.safetensors", f);
  SafetensorsFile g = read_safetensors(dir.path() / "a.safetensors");
  ASSERT_EQ(g.tensors.count("t"), 1u);
  EXPECT_EQ(g.tensors["t"].dtype, DType::I64);
  EXPECT_EQ(g.tensors["t"].shape, t.shape);
  EXPECT_EQ(g.tensors["t"].data, t.data);
  EXPECT_EQ(g.metadata["seed"], "7");
}

}  // namespace
}  // namespace evk
