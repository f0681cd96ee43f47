#define LIBCO_C
#include "libco.h"
#include "settings.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__clang__) || defined(__GNUC__)
  #define fastcall __attribute__((fastcall))
#elif defined(_MSC_VER)
  #define fastcall __fastcall
#else
  #error "libco: please define fastcall macro"
#endif

inline thread_local long co_active_buffer[64];
inline thread_local cothread_t co_active_handle = 0;
inline void (fastcall *co_swap)(cothread_t, cothread_t) = 0;

#ifdef LIBCO_MPROTECT
  alignas(4096)
#else
  LIBCO_SECTION(text)
#endif
/* ABI: fastcall */
static const unsigned char co_swap_function[4096] = {
  0x89, 0x22,        /* mov [edx],esp    */
  0x8b, 0x21,        /* mov esp,[ecx]    */
  0x58,              /* pop eax          */
  0x89, 0x6a, 0x04,  /* mov [edx+ 4],ebp */
  0x89, 0x72, 0x08,  /* mov [edx+ 8],esi */
  0x89, 0x7a, 0x0c,  /* mov [edx+12],edi */
  0x89, 0x5a, 0x10,  /* mov [edx+16],ebx */
  0x8b, 0x69, 0x04,  /* mov ebp,[ecx+ 4] */
  0x8b, 0x71, 0x08,  /* mov esi,[ecx+ 8] */
  0x8b, 0x79, 0x0c,  /* mov edi,[ecx+12] */
  0x8b, 0x59, 0x10,  /* mov ebx,[ecx+16] */
  0xff, 0xe0,        /* jmp eax          */
};

#ifdef _WIN32
  /* The macro logic below matches what valgrind.h is able to handle. Although
   * there's no Valgrind on Windows, it's possible to run a Windows exe on Linux
   * with Wine and Valgrind. See https://wiki.winehq.org/Wine_and_Valgrind. */
  #if defined(__GNUC__) || defined(_MSC_VER)
    #if __has_include("valgrind.h")
      #include "valgrind.h"
    #endif
  #endif

  #include <windows.h>

  inline void co_init(void) {
    #ifdef LIBCO_MPROTECT
    DWORD old_privileges;
    VirtualProtect((void*)co_swap_function, sizeof co_swap_function, PAGE_EXECUTE_READ, &old_privileges);
    #endif
  }
#else
  #if __has_include("valgrind.h")
    #include "valgrind.h"
  #endif
  #ifdef LIBCO_MPROTECT
    #include <unistd.h>
    #include <sys/mman.h>
  #endif

  inline void co_init(void) {
    #ifdef LIBCO_MPROTECT
    unsigned long addr = (unsigned long)co_swap_function;
    unsigned long base = addr - (addr % sysconf(_SC_PAGESIZE));
    unsigned long size = (addr - base) + sizeof co_swap_function;
    mprotect((void*)base, size, PROT_READ | PROT_EXEC);
    #endif
  }
#endif

inline void crash(void) {
  LIBCO_ASSERT(0);  /* called only if cothread_t entrypoint returns */
}

inline cothread_t co_active(void) {
  if(!co_active_handle) co_active_handle = &co_active_buffer;
  return co_active_handle;
}

inline cothread_t co_derive(void* memory, unsigned int size, void (*entrypoint)(void)) {
  cothread_t handle;
  if(!co_swap) {
    co_init();
    co_swap = (void (fastcall*)(cothread_t, cothread_t))co_swap_function;
  }
  if(!co_active_handle) co_active_handle = &co_active_buffer;

  #if defined(__VALGRIND_MAJOR__)
    VALGRIND_STACK_REGISTER(memory, (char*)memory + size);
  #endif

  if((handle = (cothread_t)memory)) {
    unsigned long stack_top = (unsigned long)handle + size;
    stack_top -= 32;
    stack_top &= ~((unsigned long) 15);
    long *p = (long*)(stack_top);  /* seek to top of stack */
    *--p = (long)crash;            /* crash if entrypoint returns */
    *--p = (long)entrypoint;       /* start of function */
    *(long*)handle = (long)p;      /* stack pointer */
  }

  return handle;
}

inline cothread_t co_create(unsigned int size, void (*entrypoint)(void)) {
  void* memory = LIBCO_MALLOC(size);
  if(!memory) return (cothread_t)0;
  return co_derive(memory, size, entrypoint);
}

inline void co_delete(cothread_t handle) {
  LIBCO_FREE(handle);
}

inline void co_switch(cothread_t handle) {
  register cothread_t co_previous_handle = co_active_handle;
  co_swap(co_active_handle = handle, co_previous_handle);
}

inline int co_serializable(void) {
  return 1;
}

#ifdef __cplusplus
}
#endif
