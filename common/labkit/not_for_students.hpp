// Marks a declaration that student code must not call, such as a lab's reference: a call stops
// the build with the reason, instead of an "undefined reference" from the linker (the reference
// is linked into the grader only). An attribute needs a macro; it is the kit's only such one.
#pragma once

#if defined(__GNUC__)
#define LABKIT_NOT_FOR_STUDENTS(why) __attribute__((error(why)))
#else
#define LABKIT_NOT_FOR_STUDENTS(why)
#endif
