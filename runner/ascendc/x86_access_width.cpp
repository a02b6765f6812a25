// x86_access_width (gm_direct.h): the width of an instruction's memory operand, from its
// prefixes, its opcode map and its opcode, for the instructions a compiler emits for loads and
// stores through a pointer (mov, movzx, the scalar and packed SSE/AVX/AVX-512 moves and
// arithmetic, broadcasts, inserts and extracts). It decodes no ModRM beyond the group opcodes
// that need it: which operand is memory does not matter, only how wide it is.
#include "gm_direct.h"

namespace evk::runner::ascendc::gm_direct {
namespace {

struct Insn {
  int map = 0;     // 0: one-byte opcodes, 1: 0F, 2: 0F38, 3: 0F3A
  int pp = 0;      // the SIMD prefix: 0 none, 1 66, 2 F3, 3 F2
  bool w = false;  // REX.W or VEX/EVEX.W
  bool opsize = false;
  bool evex_broadcast = false;
  unsigned vec = 16;  // the vector length: 16 (SSE, VEX.128), 32, 64
  unsigned char op = 0, modrm = 0;
};

// Legacy prefixes, REX, VEX/EVEX and the escape bytes; false when the bytes make no sense.
bool decode_prefix(const unsigned char* p, Insn& in) {
  int rep = 0, n = 0;
  for (;; ++p) {
    unsigned char b = *p;
    if (++n > 14) return false;
    if (b == 0x66)
      in.opsize = true;
    else if (b == 0xF2 || b == 0xF3)
      rep = b;
    else if (b != 0x2E && b != 0x36 && b != 0x3E && b != 0x26 && b != 0x64 && b != 0x65 &&
             b != 0x67 && b != 0xF0)
      break;
  }
  if ((*p & 0xF0) == 0x40) in.w = (*p++ & 8) != 0;
  if (*p == 0xC5) {  // two-byte VEX: map 0F
    in.map = 1;
    in.vec = (p[1] & 4) ? 32 : 16;
    in.pp = p[1] & 3;
    p += 2;
  } else if (*p == 0xC4) {
    in.map = p[1] & 0x1F;
    in.w = (p[2] & 0x80) != 0;
    in.vec = (p[2] & 4) ? 32 : 16;
    in.pp = p[2] & 3;
    p += 3;
  } else if (*p == 0x62) {  // EVEX
    in.map = p[1] & 3;
    in.w = (p[2] & 0x80) != 0;
    in.pp = p[2] & 3;
    in.vec = 16u << ((p[3] >> 5) & 3);
    in.evex_broadcast = (p[3] & 0x10) != 0;
    p += 4;
  } else {
    in.pp = rep == 0xF3 ? 2 : rep == 0xF2 ? 3 : in.opsize ? 1 : 0;
    if (*p == 0x0F) {
      in.map = 1;
      ++p;
      if (*p == 0x38 || *p == 0x3A) in.map = *p++ == 0x38 ? 2 : 3;
    }
  }
  if (in.map > 3) return false;
  in.op = p[0];
  in.modrm = p[1];
  return true;
}

unsigned gpr(const Insn& in) {
  return in.w ? 8 : in.opsize ? 2 : 4;
}

unsigned one_byte_map(const Insn& in) {
  static const unsigned char kByteOps[] = {0x00, 0x02, 0x08, 0x0A, 0x10, 0x12, 0x18, 0x1A,
                                           0x20, 0x22, 0x28, 0x2A, 0x30, 0x32, 0x38, 0x3A,
                                           0x80, 0x84, 0x86, 0x88, 0x8A, 0xA4, 0xA6, 0xAA,
                                           0xAC, 0xAE, 0xC0, 0xC6, 0xD0, 0xD2, 0xF6, 0xFE};
  for (unsigned char b : kByteOps)
    if (in.op == b) return 1;
  if (in.op == 0x8F) return 8;                                     // pop m64
  if (in.op == 0xFF && ((in.modrm >> 3) & 7) >= 2) return 8;       // call/jmp/push m64
  if (in.op >= 0xD8 && in.op <= 0xDF) return (in.op & 4) ? 8 : 4;  // x87: a rough width
  return gpr(in);
}

unsigned scalar_or_vec(const Insn& in) {
  return in.pp == 2 ? 4 : in.pp == 3 ? 8 : in.vec;
}

unsigned map_0f(const Insn& in) {
  unsigned char o = in.op;
  if ((o >= 0x90 && o <= 0x9F) || o == 0xB0 || o == 0xC0 || o == 0xB6 || o == 0xBE || o == 0x18 ||
      o == 0x0D)
    return 1;
  if (o == 0xB7 || o == 0xBF || o == 0xC4) return 2;
  if ((o >= 0x40 && o <= 0x4F) || o == 0xA3 || o == 0xAB || o == 0xAF || o == 0xB1 ||
      (o >= 0xB3 && o <= 0xB5) || o == 0xB8 || (o >= 0xBA && o <= 0xBD) || o == 0xC1 || o == 0xC3)
    return gpr(in);
  if (o == 0xC7) return in.w ? 16 : 8;  // cmpxchg8b/16b
  if (o == 0x12 || o == 0x13 || o == 0x16 || o == 0x17 || o == 0xD6) return 8;
  if (o == 0x2A || o == 0x6E) return in.w ? 8 : 4;   // cvtsi2ss/sd, movd/movq
  if (o == 0x7E) return in.pp == 2 || in.w ? 8 : 4;  // movq xmm, m64 / movd
  if (o == 0x2C || o == 0x2D) return in.pp == 3 ? 8 : 4;
  if (o == 0x2E || o == 0x2F) return in.pp == 1 ? 8 : 4;  // (u)comiss / (u)comisd
  if (in.evex_broadcast) return in.w ? 8 : 4;
  if (o == 0x10 || o == 0x11 || (o >= 0x51 && o <= 0x5F) || o == 0xC2) {
    if (o == 0x5A && in.pp == 0) return in.vec / 2;  // cvtps2pd
    return scalar_or_vec(in);
  }
  if (o == 0xE6 && in.pp == 2) return in.vec / 2;  // cvtdq2pd
  return in.vec;
}

unsigned map_0f38(const Insn& in) {
  unsigned char o = in.op;
  switch (o) {
    case 0x18:
    case 0x58:
      return 4;  // broadcast ss / d
    case 0x19:
    case 0x59:
      return 8;
    case 0x1A:
    case 0x5A:
      return 16;
    case 0x78:
      return 1;
    case 0x79:
      return 2;
    case 0x13:
    case 0x20:
    case 0x23:
    case 0x25:
    case 0x30:
    case 0x33:
    case 0x35:
      return in.vec / 2;  // widening: vcvtph2ps, pmovsx/zx bw, wd, dq
    case 0x21:
    case 0x24:
    case 0x31:
    case 0x34:
      return in.vec / 4;
    case 0x22:
    case 0x32:
      return in.vec / 8;
    case 0xF0:
      return in.pp == 3 ? 1 : gpr(in);  // crc32 m8 / movbe
    case 0xF1:
      return gpr(in);
    default:
      break;
  }
  // Scalar FMA (vfmadd132ss/sd and kin: the odd opcodes of 99..BF).
  if (o >= 0x99 && o <= 0xBF && (o & 1) && (o & 0x0F) >= 9) return in.w ? 8 : 4;
  if (in.evex_broadcast) return in.w ? 8 : 4;
  return in.vec;
}

unsigned map_0f3a(const Insn& in) {
  switch (in.op) {
    case 0x14:
    case 0x20:
      return 1;  // pextrb / pinsrb
    case 0x15:
      return 2;
    case 0x16:
    case 0x22:
      return in.w ? 8 : 4;
    case 0x17:
    case 0x21:
    case 0x0A:
      return 4;  // extractps, insertps, roundss
    case 0x0B:
      return 8;
    case 0x18:
    case 0x19:
    case 0x38:
    case 0x39:
      return 16;  // insert/extract 128
    case 0x1A:
    case 0x1B:
    case 0x3A:
    case 0x3B:
      return 32;
    case 0x1D:
      return in.vec / 2;  // vcvtps2ph
    default:
      return in.evex_broadcast ? (in.w ? 8 : 4) : in.vec;
  }
}

}  // namespace

unsigned x86_access_width(const unsigned char* ip) {
  Insn in;
  if (!decode_prefix(ip, in)) return 0;
  switch (in.map) {
    case 0:
      return one_byte_map(in);
    case 1:
      return map_0f(in);
    case 2:
      return map_0f38(in);
    default:
      return map_0f3a(in);
  }
}

}  // namespace evk::runner::ascendc::gm_direct
