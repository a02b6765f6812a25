/* Host platform queries (platform_ascendc::PlatformAscendC) with the Atlas A2 (910B) values of
 * the emulated device: 48 vector cores (AIV) and 24 cube cores (AIC), 192 KiB of Unified
 * Buffer per vector core, 512 KiB of L1, 64 KiB of L0A/L0B, 128 KiB of L0C, 16 MiB of system
 * workspace. The same numbers the cycle model uses (backends/ascendc/npu_constants.h). */
#ifndef EVOKERNEL_TILING_PLATFORM_PLATFORM_ASCENDC_H_
#define EVOKERNEL_TILING_PLATFORM_PLATFORM_ASCENDC_H_
#include <stdint.h>

namespace fe {
class PlatFormInfos {};
}  // namespace fe

namespace platform_ascendc {

enum class CoreMemType { L0_A, L0_B, L0_C, L1, L2, UB, HBM, RESERVED };
enum class SocVersion { ASCEND910, ASCEND910B, ASCEND310P, ASCEND310B, RESERVED_VERSION };

class PlatformAscendC {
 public:
  PlatformAscendC() {}
  explicit PlatformAscendC(const fe::PlatFormInfos*) {}
  uint32_t GetCoreNum() const { return 48; }  // the vector cores a vector kernel runs on
  uint32_t GetCoreNumAic() const { return 24; }
  uint32_t GetCoreNumAiv() const { return 48; }
  uint32_t GetCoreNumVector() const { return 0; }  // no separate vector cores besides the AIVs
  void GetCoreMemSize(CoreMemType type, uint64_t& size) const {
    switch (type) {
      case CoreMemType::UB: size = 192 * 1024; break;
      case CoreMemType::L1: size = 512 * 1024; break;
      case CoreMemType::L0_A:
      case CoreMemType::L0_B: size = 64 * 1024; break;
      case CoreMemType::L0_C: size = 128 * 1024; break;
      case CoreMemType::L2: size = 192ull * 1024 * 1024; break;
      case CoreMemType::HBM: size = 64ull * 1024 * 1024 * 1024; break;
      default: size = 0; break;
    }
  }
  SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
  uint32_t GetLibApiWorkSpaceSize() const { return 16 * 1024 * 1024; }
  // The blockDim for sliceNum pieces of work: for a kernel of one core kind the slice count;
  // for a mix kernel (one AIC with its two AIVs per block) the slices over the 1:2 ratio.
  uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    if (aicCoreNum == 0 || aivCoreNum == 0 || aivCoreNum <= aicCoreNum) return sliceNum;
    uint32_t ratio = aivCoreNum / aicCoreNum;
    return (sliceNum + ratio - 1) / ratio;
  }
};

class PlatformAscendCManager {
 public:
  static PlatformAscendC* GetInstance() {
    static PlatformAscendC p;
    return &p;
  }
};

}  // namespace platform_ascendc

#endif /* EVOKERNEL_TILING_PLATFORM_PLATFORM_ASCENDC_H_ */
