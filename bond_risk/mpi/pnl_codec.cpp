#include "bond_risk/mpi/pnl_codec.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace bond_risk::mpi {

namespace {

template <class T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_doubles(std::string& out, const std::vector<double>& values) {
  put(out, static_cast<std::uint64_t>(values.size()));
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  template <class T>
  T take() {
    T value;
    std::memcpy(&value, next(sizeof value), sizeof value);
    return value;
  }
  std::vector<double> doubles() {
    std::vector<double> values(take<std::uint64_t>());
    std::memcpy(values.data(), next(values.size() * sizeof(double)), values.size() * sizeof(double));
    return values;
  }
  std::string text() {
    const auto n = take<std::uint64_t>();
    return std::string(next(n), n);
  }

 private:
  const char* next(std::size_t n) {
    if (bytes_.size() - at_ < n) throw std::runtime_error("scenario results from another rank are cut short");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode(const std::vector<ScenarioPnl>& pnl) {
  std::string out;
  for (const ScenarioPnl& p : pnl) {
    put(out, p.total);
    put_doubles(out, p.pnl);
    put_doubles(out, p.margin);
    put(out, static_cast<std::uint64_t>(p.error.size()));
    out += p.error;
  }
  return out;
}

void decode(const std::string& bytes, std::vector<ScenarioPnl>& out) {
  Reader in(bytes);
  while (!in.done()) {
    ScenarioPnl p;
    p.total = in.take<double>();
    p.pnl = in.doubles();
    p.margin = in.doubles();
    p.error = in.text();
    out.push_back(std::move(p));
  }
}

}  // namespace bond_risk::mpi
