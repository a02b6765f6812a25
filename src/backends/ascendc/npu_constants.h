// The emulated Ascend 910B AI Core's constants: the one table both the cycle model (in
// evk-runner-ascendc) and the eager baseline (AscendcBackend) read, so the candidate and
// PyTorch-on-NPU are timed on the same machine. knowledge/ascendc/guide.md prints this table
// with the source of every figure; a value marked "model" there is this emulator's assumption,
// not a published number. Changing a value changes every modeled latency: keep the guide's
// table in step.
#pragma once
#include <cstdint>

namespace evk::npu {

// Chip.
inline constexpr double kClockGHz = 1.65;  // AI Core clock (derived, see the guide)
// An Atlas A2 (910B) AI Core pairs one cube core (AIC) with two vector cores (AIV): a vector
// kernel's blocks run on the 48 AIVs, a kernel that uses the cube on the 24 AICs (mix mode
// 1:2); GetCoreNum() is 48 for a vector kernel, GetCoreNumAic() 24.
inline constexpr uint32_t kCubeCores = 24;
inline constexpr uint32_t kVectorCores = 48;
inline constexpr uint32_t kCores = kVectorCores;  // the most blocks that run at once
inline constexpr double kHbmGBps = 1600;          // HBM2e, shared by every core and both ways
inline constexpr double kLaunchUs = 5;            // one kernel launch (candidate and eager alike)

// Per-core buffers (bytes).
inline constexpr uint32_t kUbBytes = 192 * 1024;  // Unified Buffer (VECIN/VECOUT/VECCALC)
inline constexpr uint32_t kL1Bytes = 512 * 1024;  // L1 (A1/B1), used inside Matmul
inline constexpr uint32_t kL0aBytes = 64 * 1024;
inline constexpr uint32_t kL0bBytes = 64 * 1024;
inline constexpr uint32_t kL0cBytes = 128 * 1024;
inline constexpr uint32_t kUbAlign = 32;  // DataCopy lengths and UB addresses
// The runtime rounds every GM allocation up to 32 bytes and adds 32 more (aclrtMalloc).
inline constexpr uint32_t kGmPadBytes = 32;
// The system workspace GetLibApiWorkSpaceSize() reports on an Atlas A2 (16 MiB).
inline constexpr uint32_t kSysWorkspaceBytes = 16 * 1024 * 1024;

// Copy engines (MTE2: GM -> UB/L1, MTE3: UB -> GM). A core alone moves at most its link's
// rate; all busy cores together, copy-in and copy-out alike, at most kHbmGBps (a launch costs
// at least its GM bytes at that rate).
inline constexpr double kMteBytesPerCycle = 64;     // one core's link (model: ~105 GB/s)
inline constexpr uint32_t kMteStartupCycles = 200;  // per DataCopy call (HBM latency, model)
inline constexpr uint32_t kMteBurstCycles = 8;      // per extra block of a strided copy (model)

// Vector unit: 256 bytes per repeat (8 blocks of 32 B).
inline constexpr uint32_t kVecBytesPerRepeat = 256;
inline constexpr uint32_t kVecStartupCycles = 16;  // per vector instruction (model)
// Cycles per repeat by op class (model): simple ALU, division, transcendental, reduction.
inline constexpr uint32_t kVecCyclesSimple = 1;
inline constexpr uint32_t kVecCyclesDiv = 4;
inline constexpr uint32_t kVecCyclesTranscendental = 4;
inline constexpr uint32_t kVecCyclesReduceTail = 24;  // the in-register tree after the repeats

// Scalar unit.
inline constexpr uint32_t kScalarIssueCycles = 2;      // issuing one API instruction
inline constexpr uint32_t kScalarUbAccessCycles = 20;  // LocalTensor GetValue/SetValue
inline constexpr uint32_t kScalarGmAccessCycles = 40;  // GlobalTensor GetValue/SetValue

// Cube unit: 16x16x16 MACs per cycle in half; float inputs at a quarter of that (model).
inline constexpr uint32_t kCubeFractal = 16;
inline constexpr uint32_t kCubeFloatSlowdown = 4;

// The eager baseline: PyTorch on the NPU runs each operator as a library kernel, which moves
// its bytes at this fraction of the HBM bandwidth and computes at this fraction of the peak
// (model assumptions, stated in the guide: no per-operator library timings are public).
inline constexpr double kEagerHbmEfficiency = 0.8;
inline constexpr double kEagerComputeEfficiency = 0.7;

// Derived peaks (per chip) for the eager roofline.
inline constexpr double kCycleNs = 1.0 / kClockGHz;
inline constexpr double kVectorFp32Gflops = kVectorCores * (kVecBytesPerRepeat / 4.0) * kClockGHz;
inline constexpr double kCubeFp16Gflops = kCubeCores * 2.0 * 4096 * kClockGHz;
inline constexpr double kCubeFp32Gflops = kCubeFp16Gflops / kCubeFloatSlowdown;

}  // namespace evk::npu
