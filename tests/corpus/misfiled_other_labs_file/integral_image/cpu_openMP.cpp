// CORPUS misfiled_other_labs_file — Lab 1's file under a name that is not a student file's (a
// capital MP): never taken, and noted ("did you mean cpu_openmp.cpp?"). Were it compiled, this
// line would make it a build error instead of the starter's TODO.
#error "cpu_openMP.cpp is not a student file's name: it must not be compiled"
