# setup and bundle, the two subcommands that must work on a bare Debian/Ubuntu machine without
# python3: sourced by ./labkit, the dispatcher, which calls cmd_setup or cmd_bundle, and puts the
# tools this file installs first on PATH (tools_on_path) for every other subcommand. Plain bash,
# sourced under `set -euo pipefail`; ROOT is the kit's folder. Every other subcommand is the Python
# package beside it (cli/labkit/).

# What the kit needs, as Debian/Ubuntu package names.
PACKAGES=(meson ninja-build g++ pkg-config python3 catch2 libstb-dev nlohmann-json3-dev libcli11-dev)
# What grading uses when it is there: bubblewrap (bwrap), the sandbox that compiles and runs
# student code. Without it the kit still builds and grades, unsandboxed, and says so.
OPTIONAL_PACKAGES=(bubblewrap)
# What grade-all compiles through when it is there: ccache, so that a file many students hand in
# unchanged compiles once (cli/labkit/batch.py, compile_cache). Without it every file compiles.
# setup says whether it is there and never installs it (setup_compile_cache says why); `bundle`
# fetches it with the libraries a GPU image lacks (CACHE_LIBRARIES), and setup unpacks those
# into CACHE_ROOT and puts a ccache that finds them on PATH (TOOLS_BIN): no root, no apt.
CACHE_PACKAGES=(ccache)
CACHE_LIBRARIES="libhiredis"  # ccache's own dependencies that an image may lack (Ubuntu 24.04 does)
CACHE_ROOT="third_party/ccache"
# What `labkit plot` (and `grade --plots`) draws with. Without it everything else works, and
# those commands say how to get it.
PLOT_PACKAGES=(python3-matplotlib)
# What `bundle` fetches for an offline node: the header libraries that GPU images tend to lack,
# and bubblewrap.
BUNDLE_PACKAGES=(libstb-dev catch2 nlohmann-json3-dev libcli11-dev bubblewrap)
# The oldest CUDA toolkit the kit states: every .cu compiles against its headers and CCCL
# (tests/cuda12/compile.py, which reads this line; docs/cuda_versions.md). setup refuses an older nvcc.
MIN_CUDA="12.4"
DEBS_DIR="third_party/debs"
OFFLINE_ROOT="third_party/root"
# Setup without apt-get (--user; the default without root or passwordless sudo; --offline): what is
# missing of meson, ninja and pkg-config comes from PyPI into this virtual environment, and
# TOOLS_BIN holds links to those programs alone. Every labkit command puts TOOLS_BIN first on
# PATH when it exists (tools_on_path), so that later builds find them with no change to the
# user's PATH. Not the venv's bin/ itself: its python3 would hide the system's site packages.
TOOLS_VENV="third_party/tools-venv"
TOOLS_BIN="$TOOLS_VENV/labkit-bin"
# The Python track (the labs' kernels driven from Python: PyCUDA, CuPy, Numba) runs in a virtual
# environment inside the kit, made from the system's python3 with its site packages visible, so
# that a GPU image's own cupy or numba is reused rather than downloaded again.
PY_VENV=".venv-python"
PY_DRIVERS=(pycuda cupy numba)  # the default of --python-drivers
# Where `bundle` puts the wheels that `setup --offline` installs: meson, ninja and pkgconf (for a
# node without root), and with --python the Python track's.
WHEELS_DIR="third_party/wheels"
# The platforms `bundle --python` asks pip for: the tags of PyPI's binary wheels that run on any
# x86_64 Linux node with glibc 2.17 (2.28) or newer.
PY_PLATFORMS=(manylinux_2_28_x86_64 manylinux2014_x86_64 manylinux_2_17_x86_64)

say() { printf '%s\n' "$*"; }
run() { printf '+ %s\n' "$*"; "$@"; }
die() { printf 'labkit: %s\n' "$*" >&2; exit 1; }

setup_usage() {
    cat <<'EOF'
usage: ./labkit setup [--user] [--prefix DIR] [--no-install] [--offline] [--build-dir DIR]
                      [--cuda auto|enabled|disabled] [--python] [--python-drivers LIST]
                      [-- EXTRA_MESON_ARGS...]

Installs the packages the kit needs when they are missing (meson ninja-build g++ pkg-config
python3 catch2 libstb-dev nlohmann-json3-dev libcli11-dev) with apt-get, then runs `meson setup DIR` (or `--reconfigure` when
DIR is already configured). It also installs bubblewrap, the sandbox that student code is
compiled and run in when grading; without it everything still builds and grades, but
unsandboxed, and every report says "not sandboxed". It says whether ccache is there, through
which grade-all compiles a class's files, each distinct file once (an instructor's machine wants
it; a student's does not: setup does not install it).

  --user            install without apt-get, root or sudo (the default when you are not root and
                    have no passwordless sudo): what is missing of meson, ninja and pkg-config
                    comes from PyPI into third_party/tools-venv/, which every ./labkit command
                    then finds by itself; the header libraries from the bundle in
                    third_party/debs/ (./labkit bundle, no root needed; unpacked as --offline
                    does) or from --prefix. g++ (GCC 12 or newer) and python3 with venv must be
                    there already. bubblewrap is not installed (without it, grading runs
                    unsandboxed and says so)
  --prefix DIR      headers already installed under DIR (e.g. $HOME/.local): DIR/include goes on
                    the compiler's include path, DIR/lib/pkgconfig, DIR/lib/*/pkgconfig and
                    DIR/share/pkgconfig on pkg-config's
  --no-install      do not call apt-get (nor pip); only report what is missing
  --offline         do not call apt-get; use the .debs in third_party/debs/ (see `./labkit bundle`
                    and docs/install.md, "Offline install"): they are unpacked into third_party/root/ and
                    meson is pointed at them with -Dpkg_config_path. pip (meson and ninja
                    without root; --python) installs from the wheels in third_party/wheels/ only
  --build-dir DIR   build folder (default: build)
  --cuda MODE       auto (default: GPU variants when nvcc is found), enabled (fail without nvcc),
                    disabled (CPU only)
  --python          also set up the Python track: makes the virtual environment .venv-python/
                    from python3, with the system's site packages visible (cupy or numba already
                    there are reused), and pip installs into it what is missing of numpy and the
                    drivers' packages: pycuda, cupy-cuda13x, numba-cuda. PyPI has only pycuda's
                    source: pip builds it, which needs the CUDA toolkit (nvcc) and takes minutes.
                    A driver that cannot be installed is reported and setup goes on; grading then
                    skips its variants. Ends with the drivers that import.
  --python-drivers LIST
                    the drivers to install, a comma list of pycuda,cupy,numba (default: all
                    three); implies --python
EOF
}

bundle_usage() {
    cat <<'EOF'
usage: ./labkit bundle [--python [--python-version X.Y] [--python-drivers LIST]]

On a machine WITH package access and the same distribution release as the GPU node, downloads
the .deb files of libstb-dev, catch2, nlohmann-json3-dev, libcli11-dev and bubblewrap into
third_party/debs/ (apt-get download; no root needed), with ccache and its libraries (grade-all's
compile cache: setup puts it on PATH where the node has none),
and the wheels of meson, ninja and pkgconf into third_party/wheels/ (pip download), which a node
without root takes them from. Copy the kit to the node, then run `./labkit setup --offline` there.

  --python          also fetch the Python track for an x86_64 node into third_party/wheels/:
                    the binary wheels of numpy, numba-cuda, cupy-cuda13x and their dependencies
                    (pip download --only-binary=:all: for manylinux), and pycuda's wheel, built
                    here once (PyPI has only its source; needs nvcc and the headers of a Python
                    X.Y; minutes) with the wheels of its dependencies. On the node, then:
                    ./labkit setup --python --offline
  --python-version X.Y
                    the node's python3 version (default: this machine's python3's); implies
                    --python. pycuda is built with a Python X.Y from here: python3, pythonX.Y on
                    PATH, or ~/.pyenv/versions/X.Y.*; without one it is left out, and said so
  --python-drivers LIST
                    the drivers to fetch, a comma list of pycuda,cupy,numba (default: all
                    three); implies --python
EOF
}

# --- package checks ------------------------------------------------------------------------------
dpkg_installed() {
    command -v dpkg-query >/dev/null 2>&1 &&
        [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

pc_found() {  # pkg-config module found, honouring PKG_CONFIG_PATH
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1" 2>/dev/null
}

header_found() {  # $1: a header, as #include names it; in /usr/include or --prefix's include/
    [[ -f "/usr/include/$1" || ( -n "${user_prefix-}" && -f "$user_prefix/include/$1" ) ]]
}

meson_min() {  # the oldest meson the kit builds with: meson.build's meson_version
    sed -n "s/^ *meson_version: *'>= *\([0-9.]*\)'.*/\1/p" "$ROOT/meson.build"
}

meson_ok() {  # a meson that runs and is new enough
    local have want
    have="$(meson --version 2>/dev/null)" || return 1
    want="$(meson_min)"
    [[ "$(printf '%s\n' "$want" "$have" | sort -V | head -n 1)" == "$want" ]]
}

# A program counts as present when it runs (a meson older than the kit's minimum does not count);
# a library when dpkg has it, or when it is there some other way (pkg-config finds it, honouring
# PKG_CONFIG_PATH and --prefix, or its header is there).
have_package() {
    local pkg="$1"
    case "$pkg" in
        meson) meson_ok ;;
        ninja-build) ninja --version >/dev/null 2>&1 ;;
        g++) g++ --version >/dev/null 2>&1 ;;
        pkg-config) pkg-config --version >/dev/null 2>&1 ;;
        python3) python3 --version >/dev/null 2>&1 ;;
        catch2) dpkg_installed "$pkg" || pc_found catch2-with-main || pc_found catch2 ;;
        libstb-dev) dpkg_installed "$pkg" || pc_found stb || header_found stb/stb_image.h ;;
        nlohmann-json3-dev) dpkg_installed "$pkg" || pc_found nlohmann_json ;;
        libcli11-dev) dpkg_installed "$pkg" || pc_found CLI11 || header_found CLI/CLI.hpp ;;
        *) dpkg_installed "$pkg" ;;
    esac
}

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        have_package "$p" || printf '%s\n' "$p"
    done
}

# bubblewrap: installed when it is missing and we may, else what its absence means. Never fails
# setup: the kit builds and grades without it. Offline, the one unpacked from third_party/debs/
# counts when it runs (labkit looks for it there when bwrap is not on PATH).
setup_sandbox() {  # $1: 1 when apt-get may install
    local bwrap offline_bwrap="$OFFLINE_ROOT/usr/bin/bwrap"
    if ! command -v bwrap >/dev/null 2>&1 && (($1)); then
        install_missing "${OPTIONAL_PACKAGES[@]}" || true
    fi
    bwrap="$(command -v bwrap || true)"
    if [[ -z "$bwrap" && -x "$offline_bwrap" ]]; then
        bwrap="$offline_bwrap"
    fi
    if [[ -n "$bwrap" ]] && "$bwrap" --version >/dev/null 2>&1; then
        say "sandbox: $("$bwrap" --version) ($bwrap)"
        return 0
    fi
    [[ -n "$bwrap" ]] && say "sandbox: $bwrap does not run here"
    say "sandbox: no bubblewrap. Grading still works, but student code is compiled and run"
    say "         without a sandbox (no private uid; the kit's files, solutions/ included, readable),"
    say "         and every report says \"not sandboxed\". Install it (apt-get install bubblewrap),"
    say "         or put its .deb in $DEBS_DIR/ (./labkit bundle) and run ./labkit setup --offline."
}

# matplotlib for the plots: installed when it is missing and we may; never fails setup.
setup_plots() {  # $1: 1 when apt-get may install
    local python
    for python in python3 /usr/bin/python3; do
        if command -v "$python" >/dev/null 2>&1 && "$python" -c "import matplotlib" >/dev/null 2>&1; then
            say "plots: matplotlib ($python)"
            return 0
        fi
    done
    if (($1)) && install_missing "${PLOT_PACKAGES[@]}" >/dev/null 2>&1; then
        say "plots: matplotlib installed (${PLOT_PACKAGES[*]})"
        return 0
    fi
    say "plots: no matplotlib; './labkit plot' and 'grade --plots' will say how to get it (everything else works)"
}

# ccache for grade-all's builds: said found or missing, never installed (for a build that compiles
# each file once, as a student's first build does, its lookups only cost: about a fifth of an nvcc
# compile each).
setup_compile_cache() {
    if ! command -v ccache >/dev/null 2>&1; then
        bundled_compile_cache
    fi
    if command -v ccache >/dev/null 2>&1; then
        say "compile cache: $(ccache --version | head -n 1) (grade-all compiles a file handed in unchanged once)"
    else
        say "compile cache: no ccache; grade-all compiles every submission's files (an instructor's"
        say "               machine: apt-get install ${CACHE_PACKAGES[*]}, and a class compiles each distinct file once)"
    fi
}

# ccache from the bundle ($DEBS_DIR/ccache_*.deb and its libraries), where the machine has none:
# unpacked into CACHE_ROOT, and a ccache in TOOLS_BIN that runs it with those libraries found
# (the compile sandbox shows the kit read-only, and keeps PATH). Quiet when there is no bundle.
bundled_compile_cache() {
    shopt -s nullglob
    local debs=("$DEBS_DIR"/ccache_*.deb) lib
    for lib in $CACHE_LIBRARIES; do debs+=("$DEBS_DIR"/"$lib"*.deb); done
    shopt -u nullglob
    [[ ${#debs[@]} -gt 0 && "${debs[0]}" == "$DEBS_DIR"/ccache_* ]] || return 0
    command -v dpkg-deb >/dev/null 2>&1 || return 0
    local root="$ROOT/$CACHE_ROOT" deb
    rm -rf "$root"
    mkdir -p "$root" "$ROOT/$TOOLS_BIN"
    for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$root" || return 0; done
    local libs
    libs="$(dirname "$(find "$root" -name 'libhiredis.so*' -print -quit 2>/dev/null || true)")"
    cat >"$ROOT/$TOOLS_BIN/ccache" <<WRAPPER
#!/bin/sh
# Written by ./labkit setup: the bundled ccache ($CACHE_ROOT), its libraries found.
LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$root/usr/bin/ccache" "\$@"
WRAPPER
    chmod +x "$ROOT/$TOOLS_BIN/ccache"
    tools_on_path
    if ! ccache --version >/dev/null 2>&1; then
        say "compile cache: the bundled ccache does not run here ($(ccache --version 2>&1 | head -n 1)); left out"
        rm -f "$ROOT/$TOOLS_BIN/ccache"
    fi
}

# The CUDA toolkit's tools that the handouts' questions use, beside nvcc: said found or missing,
# never installed (they are parts of the toolkit: a missing one is its package, e.g.
# cuda-cuobjdump-13-0 or cuda-nsight-compute-13-0, or a fuller CUDA module). Nothing else needs them.
GPU_TOOLS=("cuobjdump:the SASS of a kernel (cuobjdump -sass on a runner: Lab 3's question 3)"
           "ncu:Nsight Compute, a kernel's counters (DRAM throughput, occupancy, stall reasons): ./labkit profile LAB VARIANT, and the expert tiers' notes")
report_gpu_tools() {
    local entry tool what found nvcc_dir
    nvcc_dir="$(dirname "$(command -v nvcc)")"
    for entry in "${GPU_TOOLS[@]}"; do
        tool="${entry%%:*}" what="${entry#*:}"
        found="$(command -v "$tool" || true)"
        [[ -z "$found" && -x "$nvcc_dir/$tool" ]] && found="$nvcc_dir/$tool"
        if [[ -n "$found" ]]; then
            say "cuda: $tool ($found): $what"
        else
            say "cuda: no $tool beside nvcc or on PATH: $what. Every grade still works without it"
        fi
    done
}

# Whether apt-get can run as root: we are root, or sudo runs without asking for a password.
can_be_root() {
    [[ "$(id -u)" == 0 ]] || { command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; }
}

as_root() {
    if [[ "$(id -u)" == 0 ]]; then
        run env DEBIAN_FRONTEND=noninteractive "$@"
    elif command -v sudo >/dev/null 2>&1; then
        run sudo env DEBIAN_FRONTEND=noninteractive "$@"
    else
        say "labkit: not root and no sudo: cannot run $*" >&2
        return 1
    fi
}

offline_hint() {
    say "Missing packages: $*"
    say "Install them (apt-get install $*), or, on a node without package access, follow"
    say "docs/install.md, section \"Offline install\" (./labkit bundle on a connected machine, then"
    say "./labkit setup --offline here)."
}

install_missing() {  # $@: packages; returns non-zero when they could not be installed
    if ! command -v apt-get >/dev/null 2>&1; then
        say "apt-get not found."
        return 1
    fi
    # A fresh container has empty package lists: install, and on failure update and retry once.
    if as_root apt-get install -y --no-install-recommends "$@"; then
        return 0
    fi
    say "apt-get install failed; refreshing the package lists and trying again"
    as_root apt-get update && as_root apt-get install -y --no-install-recommends "$@"
}

# --- offline .debs -------------------------------------------------------------------------------
# Unpacks third_party/debs/*.deb into third_party/root/ and rewrites their pkg-config files so
# that they point there (Debian's .pc files hard-code prefix=/usr or includedir=/usr/include).
# Prints the pkg-config folders, comma-separated, for -Dpkg_config_path.
unpack_offline_debs() {
    shopt -s nullglob
    local debs=("$DEBS_DIR"/*.deb)
    shopt -u nullglob
    if ((${#debs[@]} == 0)); then
        die "no .deb files in $DEBS_DIR/: run ./labkit bundle on a machine with package access (docs/install.md, \"Offline install\")"
    fi
    command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found: cannot unpack $DEBS_DIR/*.deb"
    local root_abs="$ROOT/$OFFLINE_ROOT" deb
    mkdir -p "$root_abs"
    for deb in "${debs[@]}"; do
        printf '+ dpkg-deb -x %s %s\n' "$deb" "$OFFLINE_ROOT" >&2
        dpkg-deb -x "$deb" "$root_abs"
    done
    local pc dirs=()
    while IFS= read -r pc; do
        sed -i -E "s#^(prefix|exec_prefix|includedir|libdir)=/usr#\\1=$root_abs/usr#" "$pc"
        # Some (nlohmann_json.pc) spell the include folder out in Cflags instead.
        sed -i -E "s#-I/usr/include#-I$root_abs/usr/include#g" "$pc"
        # stb.pc points at usr/include/stb; also expose usr/include so <stb/stb_image.h> works.
        if [[ "$(basename "$pc")" == stb.pc ]] && ! grep -q -- '-I${prefix}/include$' "$pc"; then
            sed -i -E 's#^Cflags: (.*)$#Cflags: \1 -I${prefix}/include#' "$pc"
        fi
        local d
        d="$(dirname "$pc")"
        [[ " ${dirs[*]-} " == *" $d "* ]] || dirs+=("$d")
    done < <(find "$root_abs" -name '*.pc' -path '*/pkgconfig/*' | sort)
    ((${#dirs[@]})) || die "the .debs in $DEBS_DIR/ hold no pkg-config files"
    local IFS=,
    printf '%s\n' "${dirs[*]}"
}

# --- without apt-get (--user, --offline) ---------------------------------------------------------
tools_on_path() {  # TOOLS_BIN first on PATH, once it exists
    if [[ -d "$ROOT/$TOOLS_BIN" && ":$PATH:" != *":$ROOT/$TOOLS_BIN:"* ]]; then
        export PATH="$ROOT/$TOOLS_BIN:$PATH"
    fi
}

tool_pip() {  # $1: a package of PACKAGES that pip can stand in for -> what pip installs
    case "$1" in meson) echo "meson>=$(meson_min)" ;; ninja-build) echo ninja ;; pkg-config) echo pkgconf ;; esac
}

tool_program() {  # $1: meson, ninja-build or pkg-config -> the program
    case "$1" in ninja-build) echo ninja ;; *) echo "$1" ;; esac
}

# meson, ninja, pkg-config ($2...) from PyPI into TOOLS_VENV (offline: from WHEELS_DIR alone), each
# linked into TOOLS_BIN. Dies, saying what to do, when it cannot.
install_tools() {  # $1: online|offline
    local mode="$1" py="$TOOLS_VENV/bin/python" pkg pips=() args=() python3
    shift
    for pkg; do pips+=("$(tool_pip "$pkg")"); done
    if ! "$py" -c 'import sys' >/dev/null 2>&1; then
        python3="$(venv_base tools)"  # install_without_apt saw to it that there is one
        # venv makes pip with ensurepip, which Debian and Ubuntu ship apart, in python3-venv.
        if ! "$python3" -c 'import venv, ensurepip' >/dev/null 2>&1; then
            say "python3 cannot make a virtual environment here (it lacks the venv or ensurepip module),"
            say "which $* from PyPI would go into. Ask your administrator for python3-venv"
            say "(Debian/Ubuntu), or for $* themselves, then run ./labkit setup again."
            exit 1
        fi
        # A venv whose python does not run (the kit moved, its python3 went) is made anew.
        local clear=()
        [[ -e "$TOOLS_VENV" ]] && clear=(--clear)
        run "$python3" -m venv "${clear[@]}" "$TOOLS_VENV" || die "$python3 -m venv $TOOLS_VENV failed (see above)"
    fi
    if [[ "$mode" == offline ]]; then
        args=(--no-index --find-links "$WHEELS_DIR")
    elif [[ -d "$WHEELS_DIR" ]]; then
        args=(--find-links "$WHEELS_DIR")
    fi
    if ! run "$py" -m pip install --disable-pip-version-check --quiet "${args[@]}" "${pips[@]}"; then
        [[ "$mode" == offline ]] &&
            die "offline, and no wheels of ${pips[*]} in $WHEELS_DIR/: ./labkit bundle on a connected machine fetches them"
        die "pip could not install ${pips[*]} from PyPI (see above; a proxy needs https_proxy set)"
    fi
    mkdir -p "$TOOLS_BIN"
    for pkg; do
        ln -sfn "../bin/$(tool_program "$pkg")" "$TOOLS_BIN/$(tool_program "$pkg")"
    done
    tools_on_path
}

# What is missing ($@), without apt-get: meson, ninja and pkg-config from pip (install_tools), the
# header libraries from the .debs in DEBS_DIR (sets offline, so that setup unpacks them). g++ and
# python3 only an administrator can install. Dies, saying what to do, when something cannot be had.
install_without_apt() {  # $1: online|offline (pip), then the missing packages
    local mode="$1" pkg tools=() headers=() admin=() absent=()
    shift
    for pkg; do
        case "$pkg" in
            g++|python3) admin+=("$pkg") ;;
            meson|ninja-build|pkg-config) tools+=("$pkg") ;;
            *) headers+=("$pkg") ;;
        esac
    done
    if ((${#admin[@]})); then
        say "missing: ${admin[*]}, which setup installs only with apt-get, as root or through sudo."
        say "Ask your administrator for the packages g++ (GCC 12 or newer), python3 and python3-venv"
        say "(their Debian/Ubuntu names), then run ./labkit setup again."
        exit 1
    fi
    for pkg in "${headers[@]}"; do
        compgen -G "$DEBS_DIR/${pkg}_*.deb" >/dev/null || absent+=("$pkg")
    done
    if ((${#absent[@]})); then
        say "missing: ${absent[*]}, and $DEBS_DIR/ has no .deb of them. Get them with ./labkit bundle"
        say "(no root needed; here, or on a machine with package access and the same release, docs/install.md,"
        say "\"Offline install\"), or say where they are installed with --prefix DIR (e.g. \$HOME/.local),"
        say "or ask your administrator for them."
        exit 1
    fi
    if ((${#headers[@]})); then
        say "packages: ${headers[*]} from $DEBS_DIR/"
        offline=1
    fi
    if ((${#tools[@]})); then
        local from=PyPI
        [[ "$mode" == offline ]] && from="$WHEELS_DIR/"
        say "packages: ${tools[*]} from $from into $TOOLS_VENV/"
        install_tools "$mode" "${tools[@]}"
    fi
}

# --prefix DIR: its pkg-config folders (printed one a line) that exist.
prefix_pc_dirs() {
    local d
    for d in "$1"/lib/pkgconfig "$1"/lib/*/pkgconfig "$1"/share/pkgconfig; do
        [[ -d "$d" ]] && printf '%s\n' "$d"
    done
    return 0
}

# --- Python track --------------------------------------------------------------------------------
py_package() {  # $1: a driver, or numpy -> what pip installs
    case "$1" in pycuda) echo pycuda ;; cupy) echo cupy-cuda13x ;; numba) echo numba-cuda ;; *) echo "$1" ;; esac
}

# $1: a driver, or numpy -> what must import. pycuda itself, not pycuda.driver: that one loads
# the GPU driver's library (libcuda), which a machine without a GPU lacks.
py_module() {
    case "$1" in numba) echo numba.cuda ;; *) echo "$1" ;; esac
}

# --python-drivers LIST: sets py_drivers to the drivers of LIST, or dies.
set_py_drivers() {
    local d rest="$1,"
    py_drivers=()
    while [[ -n "$rest" ]]; do
        d="${rest%%,*}"
        rest="${rest#*,}"
        case "$d" in
            "") ;;
            pycuda|cupy|numba) [[ " ${py_drivers[*]-} " == *" $d "* ]] || py_drivers+=("$d") ;;
            *) die "--python-drivers: no driver '$d' (they are pycuda,cupy,numba)" ;;
        esac
    done
    ((${#py_drivers[@]})) || die "--python-drivers needs at least one of pycuda,cupy,numba"
}

py_version_of() {  # $1: a python; prints its X.Y, or fails
    "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null
}

pycuda_wheel() {  # $1: X.Y; prints the pycuda wheel for that Python in third_party/wheels/, if any
    local tag="cp${1/./}" w
    for w in "$WHEELS_DIR"/pycuda-*-"$tag"-"$tag"-*.whl; do
        [[ -f "$w" ]] && { printf '%s\n' "$w"; return 0; }
    done
    return 1
}

# pycuda has no binary wheel on PyPI: pip builds it from source, and its build finds the CUDA
# toolkit through nvcc on PATH (or CUDA_ROOT). The toolkit is often in /usr/local/cuda/bin without
# being on PATH: that folder then goes on PATH for the pip call only. Sets pycuda_env (an
# `env PATH=...` prefix for that call, or nothing); without nvcc, sets py_why and fails.
pycuda_build_env() {
    pycuda_env=()
    if command -v nvcc >/dev/null 2>&1 || [[ -n "${CUDA_ROOT-}" && -x "$CUDA_ROOT/bin/nvcc" ]]; then
        return 0
    fi
    if [[ -x /usr/local/cuda/bin/nvcc ]]; then
        pycuda_env=(env "PATH=/usr/local/cuda/bin:$PATH")
        say "python track: nvcc is in /usr/local/cuda/bin, not on PATH: added to PATH for pycuda's build"
        return 0
    fi
    py_why="building it (PyPI has only its source) needs the CUDA toolkit: no nvcc on PATH, in \$CUDA_ROOT/bin or /usr/local/cuda/bin"
    return 1
}

shown() {  # "$@" as one line, with $PATH's value (in pycuda_env's PATH=...) written as $PATH
    local line="$*"
    printf '%s\n' "${line/"$PATH"/\$PATH}"
}

py_has_headers() {  # $1: a python; whether its Python.h is there (pycuda's build compiles against it)
    "$1" -c 'import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' >/dev/null 2>&1
}

# Runs a pip command ($2...) quietly, its output kept in .venv-python/pip-$1.log (py_log): a
# failed build says a lot. On failure sets py_why to the gist (the compiler's first fatal error,
# else pip's first ERROR line) and fails.
py_pip() {
    py_log="$PY_VENV/pip-$1.log"
    shift
    printf '+ %s   (output in %s)\n' "$(shown "$@")" "$py_log"
    "$@" >"$py_log" 2>&1 && return 0
    py_why="$(grep -m 1 -E 'fatal error: |^ERROR: ' "$py_log" | sed -E 's/^ERROR: //; s/^.*(fatal error: )/\1/' || true)"
    [[ -n "$py_why" ]] || py_why="$(grep -v '^[[:space:]]*$' "$py_log" | tail -n 1 || true)"
    py_why="${py_why:-pip failed}"
    return 1
}

# Installs one package into .venv-python/; on failure sets py_why and fails.
py_install() {  # $1: a driver or numpy, $2: online|offline|none, $3: 1 when apt-get may install
    local what="$1" mode="$2" apt_ok="$3" py="$PY_VENV/bin/python" version pkg args=()
    pkg="$(py_package "$what")"
    version="$(py_version_of "$py" || true)"
    pycuda_env=()
    case "$mode" in
        none) py_why="--no-install"; return 1 ;;
        offline)
            if [[ ! -d "$WHEELS_DIR" ]]; then
                py_why="offline, and no $WHEELS_DIR/ (./labkit bundle --python --python-version $version on a connected machine)"
                return 1
            fi
            args=(--no-index --find-links "$WHEELS_DIR")
            ;;
        online)
            # A pycuda wheel that `bundle --python` built is taken over building it again.
            [[ -d "$WHEELS_DIR" ]] && args=(--find-links "$WHEELS_DIR")
            if [[ "$what" == pycuda ]] && ! pycuda_wheel "$version" >/dev/null; then
                pycuda_build_env || return 1
                if ! py_has_headers "$py" && ((apt_ok)) &&
                    [[ "$("$py" -c 'import sys; print(sys.base_prefix)' 2>/dev/null)" == /usr ]]; then
                    say "python track: pycuda's build needs Python's headers: installing python3-dev"
                    install_missing python3-dev || true
                fi
                if ! py_has_headers "$py"; then
                    py_why="building it (PyPI has only its source) needs Python $version's headers, Python.h (Debian/Ubuntu: apt-get install python3-dev)"
                    return 1
                fi
                say "python track: building pycuda (PyPI has only its source): a few minutes"
            fi
            ;;
    esac
    if ! py_pip "$pkg" "${pycuda_env[@]}" "$py" -m pip install --disable-pip-version-check --quiet "${args[@]}" "$pkg"; then
        [[ "$mode" == offline ]] && py_why="$py_why in $WHEELS_DIR/ (bundle it: ./labkit bundle --python --python-version $version)"
        return 1
    fi
}

# Whether every folder from / down to the program a path resolves to lets others through.
open_to_others() {
    local p
    p="$(readlink -f "$1")" || return 1
    while [[ -n "$p" && "$p" != / ]]; do
        [[ "$(stat -c %A "$p")" == ?????????[xt]* ]] || return 1
        p="$(dirname "$p")"
    done
}

# The python3 that a venv of the kit is made from, printed; fails without one. The sandbox runs
# what is in the kit (the Python track, a build's tools) as an unprivileged user: the venv's base
# interpreter must be one that user can reach (not a python under /root/.pyenv, say).
venv_base() {  # $1: what the venv is for, in the note when python3 is not the one
    local python3
    python3="$(command -v python3)" || return 1
    if ! open_to_others "$python3" && [[ -x /usr/bin/python3 ]]; then
        say "$1: $python3 lies where the sandbox user cannot reach it: using /usr/bin/python3" >&2
        python3=/usr/bin/python3
    fi
    printf '%s\n' "$python3"
}

# The Python track: .venv-python/ and the packages of the drivers in py_drivers. Never fails
# setup: the C++ track does not need it, and the grader skips (does not fail) the variants of a
# driver that does not import.
setup_python() {  # $1: online|offline|none (how pip installs), $2: 1 when apt-get may install
    local mode="$1" apt_ok="$2" py="$PY_VENV/bin/python" python3 version
    if ! python3="$(venv_base "python track")"; then
        say "python track: no python3; not set up"
        return 0
    fi
    if ! "$py" -c 'import sys' >/dev/null 2>&1; then
        # venv makes pip with ensurepip, which Debian and Ubuntu ship apart, in python3-venv.
        if ! "$python3" -c 'import venv, ensurepip' >/dev/null 2>&1 && ((apt_ok)); then
            say "python track: $python3 cannot make a virtual environment: installing python3-venv"
            install_missing python3-venv || true
        fi
        if ! "$python3" -c 'import venv, ensurepip' >/dev/null 2>&1; then
            say "python track: not set up: $python3 cannot make a virtual environment (no venv or ensurepip"
            say "              module). On Debian/Ubuntu: apt-get install python3-venv, then run setup --python again."
            return 0
        fi
        # A .venv-python/ whose python does not run (the kit moved, its python3 went): made anew.
        local clear=()
        [[ -e "$PY_VENV" ]] && clear=(--clear)
        if ! run "$python3" -m venv --system-site-packages "${clear[@]}" "$PY_VENV"; then
            say "python track: not set up: python3 -m venv failed (see above)"
            return 0
        fi
    fi
    version="$(py_version_of "$py" || true)"
    say "python track: $PY_VENV/ (Python $version, with the system's site packages)"

    # The drivers that do not import yet, then numpy when none of them brought it.
    local d why missing=()
    for d in "${py_drivers[@]}"; do
        "$py" -c "import $(py_module "$d")" >/dev/null 2>&1 || missing+=("$d")
    done
    for d in "${missing[@]}" numpy; do
        if [[ "$d" == numpy ]] && "$py" -c 'import numpy' >/dev/null 2>&1; then
            continue
        fi
        py_why="" py_log=""
        if ! py_install "$d" "$mode" "$apt_ok"; then
            local consequence="its variants will say skipped"
            [[ "$d" == numpy ]] && consequence="every Python variant needs it"
            [[ -n "$py_log" ]] && consequence="$consequence (pip's output: $py_log)"
            say "python track: $d not installed: $py_why; $consequence"
        elif [[ "$d" != numpy ]] && ! why="$("$py" -c "import $(py_module "$d")" 2>&1)"; then
            # pip can succeed with what does not work here (an old placeholder release, say).
            say "python track: $d: pip installed $(py_package "$d"), but 'import $(py_module "$d")' fails: $(tail -n 1 <<<"$why"); its variants will say skipped"
        fi
    done

    local works=() fails=()
    for d in "${py_drivers[@]}"; do
        if "$py" -c "import $(py_module "$d")" >/dev/null 2>&1; then works+=("$d"); else fails+=("$d"); fi
    done
    say "python track: drivers that import in $PY_VENV/: ${works[*]:-none}${fails:+ (not: ${fails[*]}; their variants will say skipped)}"
}

# pycuda's wheel for Python X.Y, built here unless third_party/wheels/ has it: PyPI has only its
# source, and the node may lack a compiler, the CUDA toolkit or network for the build.
bundle_pycuda() {  # $1: X.Y, $2: X.Y of this machine's python3
    local version="$1" py="" cand wheel
    if wheel="$(pycuda_wheel "$version")"; then
        say "python track: pycuda: $wheel is there (delete it to build it again)"
        return 0
    fi
    # A Python X.Y with pip: python3, pythonX.Y, or pyenv's (newest first). pyenv's shims are on
    # PATH for every version it has but run only the selected ones: each is tried.
    local cands=()
    [[ "$version" == "$2" ]] && cands+=(python3)
    cands+=("python$version")
    while IFS= read -r cand; do
        cands+=("$cand")
    done < <(ls -d "$HOME"/.pyenv/versions/"$version".*/bin/python"$version" 2>/dev/null | sort -rV)
    for cand in "${cands[@]}"; do
        if [[ "$(py_version_of "$cand" || true)" == "$version" ]] && "$cand" -m pip --version >/dev/null 2>&1; then
            py="$cand"
            break
        fi
    done
    if [[ -z "$py" ]]; then
        say "python track: pycuda not bundled: no Python $version with pip here to build its wheel with"
        say "              (python$version on PATH, or ~/.pyenv/versions/$version.*). Get one (pyenv install $version,"
        say "              or apt-get install python$version-dev python$version-venv), then run bundle --python again."
        return 1
    fi
    py_why=""
    if ! pycuda_build_env; then
        say "python track: pycuda not bundled: $py_why"
        return 1
    fi
    if ! py_has_headers "$py"; then
        say "python track: pycuda not bundled: $py lacks Python.h, which its build compiles against"
        say "              (Debian/Ubuntu: apt-get install python$version-dev)"
        return 1
    fi
    say "python track: building pycuda's wheel with $py (Python $version; PyPI has only its source): a few minutes"
    printf '+ %s\n' "$(shown "${pycuda_env[@]}" "$py" -m pip wheel --disable-pip-version-check --no-deps pycuda -w "$WHEELS_DIR")"
    if ! "${pycuda_env[@]}" "$py" -m pip wheel --disable-pip-version-check --no-deps pycuda -w "$WHEELS_DIR"; then
        say "python track: pycuda not bundled: its build failed (see above)"
        return 1
    fi
    say "python track: pycuda's wheel is built against this machine's CUDA toolkit and C library: the"
    say "              node needs a GPU driver for that CUDA version and a glibc at least as new as this one's."
}

# A python with pip, printed. pip downloads wheels for another Python version and platform than
# its own: any pip will do.
pip_python() {
    local py
    for py in python3 "$PY_VENV/bin/python" "$TOOLS_VENV/bin/python"; do
        if "$py" -m pip --version >/dev/null 2>&1; then
            printf '%s\n' "$py"
            return 0
        fi
    done
    return 1
}

# The wheels of meson, ninja and pkgconf for a node without root or network, which setup takes
# from third_party/wheels/ there. Never fails bundle: a node that has those programs needs none.
bundle_tools() {
    local pip_py d platforms=()
    if ! pip_py="$(pip_python)"; then
        say "tools: no pip here (python3 -m pip): the wheels of meson, ninja and pkgconf are not bundled"
        return 0
    fi
    for d in "${PY_PLATFORMS[@]}"; do platforms+=(--platform "$d"); done
    mkdir -p "$WHEELS_DIR"
    if ! run "$pip_py" -m pip download --disable-pip-version-check --quiet --only-binary=:all: "${platforms[@]}" \
        -d "$WHEELS_DIR" "$(tool_pip meson)" "$(tool_pip ninja-build)" "$(tool_pip pkg-config)"; then
        say "tools: pip download failed (see above): a node without root then needs meson and ninja installed"
    fi
}

# The Python track's wheels for the node into third_party/wheels/.
bundle_python() {  # $1: the node's Python X.Y (empty: this machine's python3's)
    local version="$1" here="" pip_py
    command -v python3 >/dev/null 2>&1 && here="$(py_version_of python3 || true)"
    version="${version:-$here}"
    [[ -n "$version" ]] || die "bundle --python: no python3 here to take the version from: give the node's --python-version X.Y"
    [[ "$version" =~ ^3\.[0-9]+$ ]] || die "--python-version must look like 3.12 (got '$version')"
    pip_py="$(pip_python)" || die "bundle --python needs pip: apt-get install python3-pip (or ./labkit setup --python first)"
    mkdir -p "$WHEELS_DIR"
    say ""
    say "python track: wheels for Python $version on x86_64 Linux into $WHEELS_DIR/"

    local d platforms=() extra missed=()
    [[ " ${py_drivers[*]} " == *" pycuda "* ]] && { bundle_pycuda "$version" "$here" || missed+=(pycuda); }
    for d in "${PY_PLATFORMS[@]}"; do platforms+=(--platform "$d"); done
    # One pip download a package, so that one without a wheel for this Python leaves the others be.
    for d in numpy "${py_drivers[@]}"; do
        extra=()
        if [[ "$d" == pycuda ]]; then
            pycuda_wheel "$version" >/dev/null || continue
            # pycuda resolves to its wheel built above (tagged linux_x86_64, as every wheel built
            # locally is), which brings its dependencies' wheels (pytools, mako, platformdirs...).
            extra=(--find-links "$WHEELS_DIR" --platform linux_x86_64)
        fi
        if ! run "$pip_py" -m pip download --disable-pip-version-check --only-binary=:all: \
            --python-version "$version" "${platforms[@]}" "${extra[@]}" -d "$WHEELS_DIR" "$(py_package "$d")"; then
            say "python track: $(py_package "$d") not bundled: pip download failed (see above)"
            missed+=("$d")
        fi
    done
    say ""
    ls -l "$WHEELS_DIR"
    say ""
    ((${#missed[@]})) && say "python track: left out: ${missed[*]} (see above); on the node their variants will say skipped"
    say "On the node (its python3 must be $version): ./labkit setup --python --offline"
}

# --- subcommands ---------------------------------------------------------------------------------
cmd_setup() {
    local install=1 offline=0 user=0 user_prefix="" build_dir=build cuda="" extra=() python=0 pip_mode=online
    py_drivers=("${PY_DRIVERS[@]}")  # --python-drivers: all of them
    while (($#)); do
        case "$1" in
            -h|--help) setup_usage; return 0 ;;
            --no-install) install=0; pip_mode=none ;;
            --offline) offline=1; [[ "$pip_mode" == none ]] || pip_mode=offline ;;
            --user) user=1 ;;
            --prefix) [[ $# -ge 2 ]] || die "--prefix needs a folder"; user_prefix="$2"; shift ;;
            --prefix=*) user_prefix="${1#*=}" ;;
            --python) python=1 ;;
            --python-drivers) [[ $# -ge 2 ]] || die "--python-drivers needs a value"; set_py_drivers "$2"; python=1; shift ;;
            --python-drivers=*) set_py_drivers "${1#*=}"; python=1 ;;
            --build-dir) [[ $# -ge 2 ]] || die "--build-dir needs a value"; build_dir="$2"; shift ;;
            --build-dir=*) build_dir="${1#*=}" ;;
            --cuda) [[ $# -ge 2 ]] || die "--cuda needs a value"; cuda="$2"; shift ;;
            --cuda=*) cuda="${1#*=}" ;;
            --) shift; extra=("$@"); break ;;
            *) setup_usage >&2; die "setup: unknown option $1" ;;
        esac
        shift
    done
    case "$cuda" in ""|auto|enabled|disabled) ;; *) die "--cuda must be auto, enabled or disabled" ;; esac

    # 1. Packages: with apt-get, else (--user, --offline, neither root nor sudo) without it. The
    # headers of --prefix count as present, its pkg-config folders found through PKG_CONFIG_PATH.
    local prefix_pc=()
    if [[ -n "$user_prefix" ]]; then
        [[ -d "$user_prefix" ]] || die "--prefix $user_prefix: no such folder"
        user_prefix="$(cd "$user_prefix" && pwd)"
        mapfile -t prefix_pc < <(prefix_pc_dirs "$user_prefix")
        if ((${#prefix_pc[@]})); then
            PKG_CONFIG_PATH="$(IFS=:; printf '%s' "${prefix_pc[*]}")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
            export PKG_CONFIG_PATH
        fi
    fi
    local missing
    mapfile -t missing < <(missing_packages)
    if ((${#missing[@]} == 0)); then
        say "packages: all present (${PACKAGES[*]})"
    elif ! ((install)); then
        offline_hint "${missing[@]}"
        say "(--no-install: going on; meson will say what it cannot find)"
    else
        if ! ((user || offline)) && ! can_be_root; then
            user=1
            say "setup: neither root nor passwordless sudo: installing for this user only, as --user does (sudo -v first for apt-get)"
        fi
        if ((user || offline)); then
            install_without_apt "$pip_mode" "${missing[@]}"
        else
            say "packages: installing ${missing[*]}"
            # What apt-get could not install, or installed too old (Ubuntu 22.04's meson is 0.61,
            # older than meson.build's minimum): the same without it.
            install_missing "${missing[@]}" || true
            mapfile -t missing < <(missing_packages)
            if ((${#missing[@]})); then
                say "apt-get did not give ${missing[*]} (or gave one older than the kit needs: meson >= $(meson_min)): installing without it"
                install_without_apt "$pip_mode" "${missing[@]}"
            fi
        fi
    fi
    # What apt-get may still add (bubblewrap, matplotlib, what the Python track needs): never
    # without root, never offline.
    local apt_ok=0
    if ((install && !offline && !user)) && can_be_root; then
        apt_ok=1
    fi

    local meson_args=() pc_path=""
    if ((offline)); then
        pc_path="$(unpack_offline_debs)"
        say "offline: unpacked $DEBS_DIR/*.deb into $OFFLINE_ROOT/; pkg-config path $pc_path"
    fi
    if [[ -n "$user_prefix" ]]; then
        if ((${#prefix_pc[@]})); then
            pc_path="${pc_path:+$pc_path,}$(IFS=,; printf '%s' "${prefix_pc[*]}")"
        fi
        if [[ -d "$user_prefix/include" ]]; then
            meson_args+=("-Dcpp_args=-isystem$user_prefix/include")
        fi
        say "prefix: $user_prefix (its include/ and pkg-config folders: ${prefix_pc[*]:-none})"
    fi
    [[ -z "$pc_path" ]] || meson_args+=("-Dpkg_config_path=$pc_path")
    setup_sandbox "$apt_ok"
    setup_compile_cache
    setup_plots "$apt_ok"

    for tool in meson ninja; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (see above)"
    done

    # 2. CUDA: nvcc is often installed in /usr/local/cuda/bin without being on PATH.
    if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
        export PATH="/usr/local/cuda/bin:$PATH"
        say "cuda: nvcc found in /usr/local/cuda/bin (added to PATH for this build; consider"
        say "      export PATH=/usr/local/cuda/bin:\$PATH in your shell profile)"
    fi
    if command -v nvcc >/dev/null 2>&1; then
        say "cuda: $(nvcc --version | tail -n 2 | head -n 1)"
        local release
        release=$(nvcc --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1)
        if [[ "$cuda" != disabled && -n "$release" ]] && [[ "$(printf '%s\n%s\n' "$MIN_CUDA" "$release" | sort -V | head -n 1)" != "$MIN_CUDA" ]]; then
            die "cuda: nvcc $release is older than CUDA $MIN_CUDA, the oldest the kit supports (docs/cuda_versions.md):
       load or install CUDA $MIN_CUDA or newer (e.g. 'module load cuda/12.4', or NVIDIA's cuda-toolkit
       package) and put its bin/ first on PATH; or build only the CPU variants with --cuda disabled"
        fi
        report_gpu_tools
    elif [[ "$cuda" == enabled ]]; then
        die "--cuda enabled but nvcc was not found (PATH or /usr/local/cuda/bin)"
    else
        say "cuda: nvcc not found: only the CPU variants will be built"
    fi
    [[ -n "$cuda" ]] && meson_args+=("-Dcuda=$cuda")

    # 3. The Python track, when asked for: after the CUDA step, which puts nvcc on PATH for
    # pycuda's build. pip follows --offline and --no-install as the user gave them, not the
    # fall-back to third_party/debs/ above (PyPI may well be reachable where apt-get fails).
    if ((python)); then
        setup_python "$pip_mode" "$apt_ok"
    fi

    # 4. Configure.
    if [[ -f "$build_dir/meson-private/coredata.dat" ]]; then
        run meson setup --reconfigure "$build_dir" "${meson_args[@]}" "${extra[@]}"
    else
        run meson setup "$build_dir" "${meson_args[@]}" "${extra[@]}"
    fi
    say ""
    if [[ -d "$TOOLS_BIN" ]]; then
        say "$(cd "$TOOLS_BIN" && echo *): from $TOOLS_VENV/, which every ./labkit command finds by"
        say "itself; for plain meson or ninja commands: export PATH=\"$ROOT/$TOOLS_BIN:\$PATH\""
    fi
    say "setup done. Next: ./labkit build, ./labkit grade, ./labkit test"
}

cmd_bundle() {
    local python=0 py_version=""
    py_drivers=("${PY_DRIVERS[@]}")  # --python-drivers: all of them
    while (($#)); do
        case "$1" in
            -h|--help) bundle_usage; return 0 ;;
            --python) python=1 ;;
            --python-version) [[ $# -ge 2 ]] || die "--python-version needs a value"; py_version="$2"; python=1; shift ;;
            --python-version=*) py_version="${1#*=}"; python=1 ;;
            --python-drivers) [[ $# -ge 2 ]] || die "--python-drivers needs a value"; set_py_drivers "$2"; python=1; shift ;;
            --python-drivers=*) set_py_drivers "${1#*=}"; python=1 ;;
            *) bundle_usage >&2; die "bundle: unknown option $1" ;;
        esac
        shift
    done
    # Checked before apt-get download, so that a wrong one costs nothing.
    [[ -z "$py_version" || "$py_version" =~ ^3\.[0-9]+$ ]] || die "--python-version must look like 3.12 (got '$py_version')"
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found: download ${BUNDLE_PACKAGES[*]} .debs by hand into $DEBS_DIR/"
    mkdir -p "$DEBS_DIR"
    # apt-get download writes into the current folder and needs no root.
    if ! (cd "$DEBS_DIR" && run apt-get download "${BUNDLE_PACKAGES[@]}"); then
        die "apt-get download failed (try: sudo apt-get update)"
    fi
    # The compile cache, with the libraries of it an image may lack (their names differ between
    # releases: asked of apt). Optional: a class grades without it, only slower.
    local cache_libs
    cache_libs="$(apt-cache depends "${CACHE_PACKAGES[@]}" 2>/dev/null | awk -v l="$CACHE_LIBRARIES" '$1 == "Depends:" && index($2, l) == 1 {print $2}')"
    # shellcheck disable=SC2086
    (cd "$DEBS_DIR" && run apt-get download "${CACHE_PACKAGES[@]}" $cache_libs) ||
        say "warning: could not download ${CACHE_PACKAGES[*]} $cache_libs: grade-all on the node compiles every file"
    bundle_tools
    say ""
    ls -l "$DEBS_DIR"
    [[ ! -d "$WHEELS_DIR" ]] || ls -l "$WHEELS_DIR"
    say ""
    say "Copy the kit (with $DEBS_DIR/ and $WHEELS_DIR/) to the GPU node and run: ./labkit setup --offline"
    say "The .debs must come from the same distribution release as the node (e.g. Ubuntu 24.04)."
    if ((python)); then
        bundle_python "$py_version"
    fi
}
