// Each activity's pricing GEMM problem (M, N, K), kept as an index into the distinct shapes of the
// trace: 4 bytes an activity instead of 24 (GEMMs repeat the same few shapes every step, and most
// activities have none).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace plasmient::verdict {

class GemmShapes {
 public:
  using Mnk = std::array<std::int64_t, 3>;

  // n activities, none with a GEMM.
  void Reset(std::size_t n) { shape_.assign(n, kNone); }

  // Activity k's shape; zeros for none.
  void Set(std::size_t k, const Mnk& mnk) {
    if (mnk == Mnk{}) {
      shape_[k] = kNone;
      return;
    }
    auto [it, fresh] = index_.try_emplace(mnk, static_cast<std::int32_t>(shapes_.size()));
    if (fresh) shapes_.push_back(mnk);
    shape_[k] = it->second;
  }

  // Activity k's M, N, K; zeros when no GEMM model priced it.
  Mnk operator[](std::size_t k) const { return shape_[k] == kNone ? Mnk{} : shapes_[shape_[k]]; }
  std::size_t size() const { return shape_.size(); }

 private:
  static constexpr std::int32_t kNone = -1;
  std::vector<std::int32_t> shape_;  // per activity: its entry of shapes_, or kNone
  std::vector<Mnk> shapes_;          // by first use
  std::map<Mnk, std::int32_t> index_;
};

}  // namespace plasmient::verdict
