// Stand-in for Windows' bcryptprimitives.dll, built only into the Wine prefix
// the Windows test suite runs in (scripts/install-windows.mjs), never shipped.
//
// Real Windows (8 and later) has bcryptprimitives.dll in System32, and Rust's
// standard library draws its random numbers from its ProcessPrng export. Wine 8
// has no such DLL, so every Rust-built native module (vitest's rolldown,
// lightningcss) fails to load with "Module not found". This one export asks
// the system's preferred RNG through BCryptGenRandom, which Wine has, and so
// does what the real ProcessPrng does: fill the buffer, never fail.

#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    // BCryptGenRandom takes a ULONG length: feed larger buffers in pieces.
    ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
