// The emulated Ascend 910B AI Core's constants: the one table both the cycle model (in
// evk-runner-ascendc) and the eager baseline (AscendcBackend) read, so the candidate and
// PyTorch-on-NPU are timed on the same machine. knowledge/ascendc/guide.md prints this table
// with the source of every figure; a value marked "model" there is this emulator's assumption,
// not a published number. "platform config" is CANN's Ascend910B2C.ini (cann/runtime,
// src/platform/platform_config), "limulidae" github.com/gameofdimension/limulidae (torch_npu
// on a 910B), "ascend-rs" ascend-rs.org appendix F (Ascend C on a 910B3). Changing a value
// changes every modeled latency: keep the guide's table and the README's calibration table
// (bench/ascendc_calibration) in step.
#pragma once
#include <cstdint>

namespace evk::npu {

// Chip.
inline constexpr double kClockGHz = 1.8;  // platform config: cube_freq=1800 (910B1: 1850)
// An Atlas A2 (910B) AI Core pairs one cube core (AIC) with two vector cores (AIV): a vector
// kernel's blocks run on the 48 AIVs, a kernel that uses the cube on the 24 AICs (mix mode
// 1:2); GetCoreNum() is 48 for a vector kernel, GetCoreNumAic() 24.
inline constexpr uint32_t kCubeCores = 24;
inline constexpr uint32_t kVectorCores = 48;
inline constexpr uint32_t kCores = kVectorCores;  // the most blocks that run at once
// HBM as kernels reach it, shared by every core and both ways: limulidae measured torch.exp
// and torch.sigmoid reading 642 and 640 GB/s and writing as much (nominal: about 1.6 TB/s).
inline constexpr double kHbmGBps = 1284;
// One kernel launch as the host sees it, launch to stream synchronise (candidate and eager
// alike): fitted to ascend-rs's tiny kernels, 22-30 us each on a 910B3.
inline constexpr double kLaunchUs = 25;

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
inline constexpr double kMteBytesPerCycle = 64;  // platform config: ub_to_ddr_rate=64
// A Matmul's base tiles, reloaded from the 192 MiB L2 (platform config l2_size, l2_rate=110).
inline constexpr double kL2BytesPerCycle = 110;
inline constexpr uint32_t kMteStartupCycles = 200;  // per DataCopy call (HBM latency, model)
inline constexpr uint32_t kMteBurstCycles = 8;      // per extra block of a strided copy (model)

// Vector unit: 256 bytes per repeat (8 blocks of 32 B; platform config vec_calc_size=128 half).
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

// Cube unit: 16x16x16 MACs per cycle in half (platform config cube_m/n/k_size=16); float inputs
// at a quarter of that (limulidae: torch.mm at 328 TFLOPS bf16, 87 fp32).
inline constexpr uint32_t kCubeFractal = 16;
inline constexpr uint32_t kCubeFloatSlowdown = 4;

// The eager baseline: PyTorch on the NPU runs each operator as a library kernel, which moves
// its bytes at this fraction of the HBM bandwidth (whose figure is torch's own elementwise
// operators) and computes at this fraction of the peak (torch.mm's best: 328 of 354 TFLOPS).
inline constexpr double kEagerHbmEfficiency = 1.0;
inline constexpr double kEagerComputeEfficiency = 0.93;

// Derived peaks (per chip) for the eager roofline.
inline constexpr double kCycleNs = 1.0 / kClockGHz;
inline constexpr double kVectorFp32Gflops = kVectorCores * (kVecBytesPerRepeat / 4.0) * kClockGHz;
inline constexpr double kCubeFp16Gflops = kCubeCores * 2.0 * 4096 * kClockGHz;
inline constexpr double kCubeFp32Gflops = kCubeFp16Gflops / kCubeFloatSlowdown;

}  // namespace evk::npu
