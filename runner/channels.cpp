#include "channels.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace evk::runner {
namespace {

void write_all(int fd, const uint8_t* data, size_t size, const std::string& what) {
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::write(fd, data + off, size - off);
    if (n <= 0) throw Error(what);
    off += static_cast<size_t>(n);
  }
}

}  // namespace

void Reporter::emit(const nlohmann::json& e) {
  // A leading newline ends any partial line something else may have left on this fd.
  std::string s = "\n" + e.dump() + "\n";
  write_all(fd_, reinterpret_cast<const uint8_t*>(s.data()), s.size(), "lost the verdict channel");
}

void RecordFile::append(const std::vector<uint8_t>& bytes) {
  write_all(fd_, bytes.data(), bytes.size(), "cannot write the outputs record");
}

nlohmann::json Observations::event(const std::vector<std::string>& records) const {
  nlohmann::json e = {
      {"event", "result"},   {"records", records},     {"input_mutated", mutated},
      {"late_write", late},  {"failed_rc", failed_rc}, {"failed_phase", failed_phase},
      {"median_ms", median}, {"iqr_ms", iqr},          {"min_ms", min},
      {"trials", trials},    {"exception", exception}};
  e["mixed_unchanged"] =
      mixed_unchanged < 0 ? nlohmann::json(nullptr) : nlohmann::json(mixed_unchanged == 1);
  return e;
}

void Observations::set_timing(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto q = [&](double p) {  // linear interpolation between order statistics
    double x = p * static_cast<double>(ms.size() - 1);
    size_t lo = static_cast<size_t>(x);
    size_t hi = std::min(lo + 1, ms.size() - 1);
    return ms[lo] + (ms[hi] - ms[lo]) * (x - static_cast<double>(lo));
  };
  median = q(0.5);
  iqr = q(0.75) - q(0.25);
  min = ms.front();
  trials = static_cast<int>(ms.size());
}

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

void sleep_ms(double ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(std::fmod(ms, 1000.0) * 1e6)};
  nanosleep(&ts, nullptr);
}

}  // namespace evk::runner
