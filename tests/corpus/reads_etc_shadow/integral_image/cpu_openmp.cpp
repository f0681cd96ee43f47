// CORPUS reads_etc_shadow — includes /etc/shadow: the compiler fails on its first line and
// prints that line (root's password hash) in its error message, into the build log and the
// class files. The compile must run in a sandbox that cannot read /etc/shadow: build-error, and
// no line of the file (here: "root:") in any log or report.
#include "/etc/shadow"
