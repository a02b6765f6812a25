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
inline constexpr uint32_t kCores = 24;     // AI Cores that run blocks at once
inline constexpr double kHbmGBps = 1600;   // HBM2e bandwidth shared by all cores
inline constexpr double kLaunchUs = 5;     // one kernel launch (candidate and eager alike)

// Per-core buffers (bytes).
inline constexpr uint32_t kUbBytes = 192 * 1024;  // Unified Buffer (VECIN/VECOUT/VECCALC)
inline constexpr uint32_t kL1Bytes = 512 * 1024;  // L1 (A1/B1), used inside Matmul
inline constexpr uint32_t kL0aBytes = 64 * 1024;
inline constexpr uint32_t kL0bBytes = 64 * 1024;
inline constexpr uint32_t kL0cBytes = 128 * 1024;
inline constexpr uint32_t kUbAlign = 32;  // DataCopy lengths and UB addresses

// Copy engines (MTE2: GM -> UB/L1, MTE3: UB -> GM).
inline constexpr double kMteBytesPerCycle = 128;    // one core's link when HBM is not the limit
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
inline constexpr uint32_t kScalarIssueCycles = 2;       // issuing one API instruction
inline constexpr uint32_t kScalarUbAccessCycles = 20;   // LocalTensor GetValue/SetValue
inline constexpr uint32_t kScalarGmAccessCycles = 400;  // GlobalTensor GetValue/SetValue

// Cube unit: 16x16x16 MACs per cycle in half; float inputs at a quarter of that (model).
inline constexpr uint32_t kCubeFractal = 16;
inline constexpr uint32_t kCubeFloatSlowdown = 4;

// Derived peaks (per chip) for the eager roofline.
inline constexpr double kCycleNs = 1.0 / kClockGHz;
inline constexpr double kVectorFp32Gflops = kCores * (kVecBytesPerRepeat / 4.0) * kClockGHz;
inline constexpr double kCubeFp16Gflops = kCores * 2.0 * 4096 * kClockGHz;
inline constexpr double kCubeFp32Gflops = kCubeFp16Gflops / kCubeFloatSlowdown;

}  // namespace evk::npu
