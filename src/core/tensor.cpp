#include "core/tensor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/paths.h"

namespace evk {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F64: return 8;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::BOOL: return 1;
    case DType::U8: return 1;
    case DType::F16: return 2;
  }
  throw Error("unknown dtype code " + std::to_string(static_cast<int>(t)));
}

static const std::pair<DType, const char*> kNames[] = {
    {DType::F32, "F32"}, {DType::F64, "F64"},   {DType::I32, "I32"}, {DType::I64, "I64"},
    {DType::BOOL, "BOOL"}, {DType::U8, "U8"}, {DType::F16, "F16"}};

std::string dtype_name(DType t) {
  for (auto& [d, n] : kNames)
    if (d == t) return n;
  throw Error("unknown dtype code " + std::to_string(static_cast<int>(t)));
}

DType dtype_from_name(const std::string& s) {
  for (auto& [d, n] : kNames)
    if (s == n) return d;
  throw Error("unsupported dtype '" + s + "'");
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

double Tensor::at(int64_t i) const {
  switch (dtype) {
    case DType::F32: return as<float>()[i];
    case DType::F64: return as<double>()[i];
    case DType::I32: return as<int32_t>()[i];
    case DType::I64: return static_cast<double>(as<int64_t>()[i]);
    case DType::BOOL:
    case DType::U8: return data[static_cast<size_t>(i)];
    case DType::F16: {
      // IEEE binary16, decoded exactly (every half is a double): compared as float32 is.
      uint16_t h;
      std::memcpy(&h, data.data() + 2 * static_cast<size_t>(i), 2);
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
      return (h & 0x8000) ? -v : v;
    }
  }
  return 0;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& name) {
  auto bad = [&](const std::string& why) {
    return Error("malformed safetensors file " + name + ": " + why);
  };
  if (bytes.size() < 8) throw bad("shorter than the 8-byte header length");
  uint64_t hlen = 0;
  std::memcpy(&hlen, bytes.data(), 8);  // little-endian on every platform we build for
  if (hlen > bytes.size() - 8)
    throw bad("header claims " + std::to_string(hlen) + " bytes but the file has " +
              std::to_string(bytes.size() - 8) + " after the length");
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(hlen));
  } catch (const std::exception& e) {
    throw bad(std::string("header is not valid JSON: ") + e.what());
  }
  if (!h.is_object()) throw bad("header is not a JSON object");
  const size_t data_begin = 8 + hlen;
  const size_t data_size = bytes.size() - data_begin;

  SafetensorsFile f;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto& [key, v] : h.items()) {
    if (key == "__metadata__") {
      if (!v.is_object()) throw bad("__metadata__ is not an object");
      for (auto& [mk, mv] : v.items()) {
        if (!mv.is_string()) throw bad("__metadata__." + mk + " is not a string");
        f.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    try {
      Tensor t;
      t.dtype = dtype_from_name(v.at("dtype").get<std::string>());
      for (auto& d : v.at("shape")) {
        int64_t x = d.get<int64_t>();
        if (x < 0) throw bad("tensor '" + key + "' has a negative dimension");
        t.shape.push_back(x);
      }
      auto offs = v.at("data_offsets");
      if (!offs.is_array() || offs.size() != 2) throw bad("tensor '" + key + "' data_offsets");
      uint64_t b = offs[0].get<uint64_t>(), e = offs[1].get<uint64_t>();
      if (b > e || e > data_size)
        throw bad("tensor '" + key + "' offsets [" + std::to_string(b) + ", " +
                  std::to_string(e) + ") lie outside the " + std::to_string(data_size) +
                  "-byte data section");
      // Overflow-safe expected size.
      uint64_t expect = dtype_size(t.dtype);
      for (auto d : t.shape) {
        if (d != 0 && expect > UINT64_MAX / static_cast<uint64_t>(d))
          throw bad("tensor '" + key + "' shape overflows");
        expect *= static_cast<uint64_t>(d);
      }
      if (e - b != expect)
        throw bad("tensor '" + key + "' holds " + std::to_string(e - b) + " bytes but shape " +
                  shape_str(t.shape) + " of " + dtype_name(t.dtype) + " needs " +
                  std::to_string(expect));
      t.data.assign(bytes.begin() + static_cast<long>(data_begin + b),
                    bytes.begin() + static_cast<long>(data_begin + e));
      ranges.emplace_back(b, e);
      f.tensors.emplace(key, std::move(t));
    } catch (const nlohmann::json::exception& e) {
      throw bad("tensor '" + key + "': " + e.what());
    } catch (const Error& e) {
      if (std::string(e.what()).rfind("malformed", 0) == 0) throw;
      throw bad("tensor '" + key + "': " + e.what());
    }
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second && ranges[i].first != ranges[i].second)
      throw bad("tensors overlap in the data section");
  return f;
}

// The file mapped read-only for the parse: each tensor is copied once, from the page cache
// into its own buffer (references are tens of MiB, read for every verification).
SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size == 0) {
    ::close(fd);
    return parse_safetensors(read_file(path), path.string());  // says what is wrong with it
  }
  size_t n = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return parse_safetensors(read_file(path), path.string());
  struct Unmap {
    void* p;
    size_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{p, n};
  return parse_safetensors(std::string_view(static_cast<const char*>(p), n), path.string());
}

void write_safetensors(const std::filesystem::path& path, const SafetensorsFile& f) {
  nlohmann::json h = nlohmann::json::object();
  if (!f.metadata.empty()) h["__metadata__"] = f.metadata;
  uint64_t off = 0;
  for (const auto& [name, t] : f.tensors) {
    h[name] = {{"dtype", dtype_name(t.dtype)},
               {"shape", t.shape},
               {"data_offsets", {off, off + t.data.size()}}};
    off += t.data.size();
  }
  std::string header = h.dump();
  while ((8 + header.size()) % 8) header.push_back(' ');  // align the data section
  std::string out(8, '\0');
  uint64_t hlen = header.size();
  std::memcpy(out.data(), &hlen, 8);
  out += header;
  for (const auto& [name, t] : f.tensors)
    out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  write_file_atomic(path, out);
}

}  // namespace evk
