// Where the shim's large static buffers live. A static musl binary's .bss is
// laid out in link order: the shim's own objects first, then libc's, which
// libc writes at every start. A large buffer in .bss pushes libc's data onto
// pages of its own, and each page first touched costs a page fault on every
// denial. Marked AGT_LATE_BSS, a buffer goes to .lbss instead (zeroed and
// writable like .bss, no bytes in the file), which the linker places after
// the whole of .bss: the small data a denial touches, libc's included, then
// shares the page .data already faulted in, and a buffer whose start alone
// is used (the record's) touches only its first page.
#ifndef AGT_DENY_SHIM_LATE_BSS_H_
#define AGT_DENY_SHIM_LATE_BSS_H_

#define AGT_LATE_BSS __attribute__((section(".lbss")))

#endif  // AGT_DENY_SHIM_LATE_BSS_H_
