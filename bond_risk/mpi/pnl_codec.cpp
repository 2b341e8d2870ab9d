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
    const char* from = next(values.size() * sizeof(double));
    if (!values.empty()) std::memcpy(values.data(), from, values.size() * sizeof(double));  // a rank without books: no data()
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

std::string encode(const RankShare& share) {
  std::string out;
  put(out, static_cast<std::uint64_t>(share.books.size()));
  for (std::size_t b = 0; b < share.books.size(); ++b) {
    put(out, share.books.ids[b]);
    put(out, static_cast<std::uint8_t>(share.books.kinds[b]));
    put(out, share.books.publishes[b]);
  }
  put(out, static_cast<std::uint64_t>(share.pnl.size()));
  for (const ScenarioPnl& p : share.pnl) {
    put(out, p.total);
    put_doubles(out, p.pnl);
    put_doubles(out, p.margin);
    put(out, static_cast<std::uint64_t>(p.error.size()));
    out += p.error;
  }
  return out;
}

RankShare decode(const std::string& bytes) {
  Reader in(bytes);
  RankShare share;
  for (auto n = in.take<std::uint64_t>(); n > 0; --n) {
    const auto id = in.take<std::int64_t>();
    const auto kind = static_cast<Kind>(in.take<std::uint8_t>());
    share.books.push_back(id, kind, in.take<unsigned char>() != 0);
  }
  for (auto n = in.take<std::uint64_t>(); n > 0; --n) {
    ScenarioPnl p;
    p.total = in.take<double>();
    p.pnl = in.doubles();
    p.margin = in.doubles();
    p.error = in.text();
    share.pnl.push_back(std::move(p));
  }
  if (!in.done()) throw std::runtime_error("scenario results from another rank have bytes left over");
  return share;
}

}  // namespace bond_risk::mpi
