// The access width the Ascend C runner charges a direct GM load or store by
// (runner/ascendc/gm_direct.h): the instructions g++ and glibc emit for loads and stores through
// a pointer, as bytes, each with the width of its memory operand.
#include <gtest/gtest.h>

#include <vector>

#include "../../../runner/ascendc/gm_direct.h"

namespace evk::runner::ascendc::gm_direct {
namespace {

unsigned width(std::vector<unsigned char> insn) {
  insn.resize(insn.size() + 16, 0x90);  // the decoder may read past a short encoding
  return x86_access_width(insn.data());
}

TEST(X86AccessWidth, GeneralPurposeLoadsAndStores) {
  EXPECT_EQ(width({0x8B, 0x07}), 4u);              // mov eax, [rdi]
  EXPECT_EQ(width({0x48, 0x8B, 0x07}), 8u);        // mov rax, [rdi]
  EXPECT_EQ(width({0x66, 0x89, 0x07}), 2u);        // mov [rdi], ax
  EXPECT_EQ(width({0x88, 0x07}), 1u);              // mov [rdi], al
  EXPECT_EQ(width({0x0F, 0xB6, 0x07}), 1u);        // movzx eax, byte [rdi]
  EXPECT_EQ(width({0x0F, 0xB7, 0x07}), 2u);        // movzx eax, word [rdi]
  EXPECT_EQ(width({0xC7, 0x07, 1, 0, 0, 0}), 4u);  // mov dword [rdi], 1
  EXPECT_EQ(width({0xF3, 0xA4}), 1u);              // rep movsb: one byte a step
  EXPECT_EQ(width({0x41, 0x03, 0x04, 0x24}), 4u);  // add eax, [r12]
}

TEST(X86AccessWidth, ScalarAndPackedSse) {
  EXPECT_EQ(width({0xF3, 0x0F, 0x10, 0x07}), 4u);   // movss xmm0, [rdi]
  EXPECT_EQ(width({0xF2, 0x0F, 0x11, 0x07}), 8u);   // movsd [rdi], xmm0
  EXPECT_EQ(width({0x0F, 0x10, 0x07}), 16u);        // movups xmm0, [rdi]
  EXPECT_EQ(width({0x66, 0x0F, 0x6F, 0x07}), 16u);  // movdqa xmm0, [rdi]
  EXPECT_EQ(width({0xF3, 0x0F, 0x6F, 0x07}), 16u);  // movdqu xmm0, [rdi]
  EXPECT_EQ(width({0xF3, 0x0F, 0x58, 0x07}), 4u);   // addss xmm0, [rdi]
  EXPECT_EQ(width({0x0F, 0x58, 0x07}), 16u);        // addps xmm0, [rdi]
  EXPECT_EQ(width({0x66, 0x0F, 0x6E, 0x07}), 4u);   // movd xmm0, [rdi]
  EXPECT_EQ(width({0xF3, 0x0F, 0x7E, 0x07}), 8u);   // movq xmm0, [rdi]
  EXPECT_EQ(width({0x0F, 0x2E, 0x07}), 4u);         // ucomiss xmm0, [rdi]
}

TEST(X86AccessWidth, AvxAndAvx512) {
  EXPECT_EQ(width({0xC5, 0xFA, 0x10, 0x07}), 4u);               // vmovss xmm0, [rdi]
  EXPECT_EQ(width({0xC5, 0xFC, 0x10, 0x07}), 32u);              // vmovups ymm0, [rdi]
  EXPECT_EQ(width({0xC5, 0xFE, 0x6F, 0x07}), 32u);              // vmovdqu ymm0, [rdi]
  EXPECT_EQ(width({0xC5, 0xF8, 0x11, 0x07}), 16u);              // vmovups [rdi], xmm0
  EXPECT_EQ(width({0xC4, 0xE2, 0x7D, 0x18, 0x07}), 4u);         // vbroadcastss ymm0, [rdi]
  EXPECT_EQ(width({0xC4, 0xE2, 0x79, 0xA9, 0x07}), 4u);         // vfmadd213ss xmm0, xmm0, [rdi]
  EXPECT_EQ(width({0x62, 0xF1, 0x7C, 0x48, 0x10, 0x07}), 64u);  // vmovups zmm0, [rdi]
  EXPECT_EQ(width({0x62, 0xF1, 0x7C, 0x58, 0x58, 0x07}), 4u);   // vaddps zmm0, zmm0, [rdi]{1to16}
}

}  // namespace
}  // namespace evk::runner::ascendc::gm_direct
