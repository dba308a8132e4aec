# Sourced by the benchmarks. `release_flowrun ROOT` sets `flowrun` to the binary to measure, as an absolute path:
# FLOWRUN when it is given, else the static release build (`swift build -c release --static-swift-stdlib`), built
# here into ROOT/.build-release with the emulator, or with EMULATOR=0 into ROOT/.build-release-lean without it (as
# .ci/install.sh ships it, decision 63); and `built_here` to 1 when it built it, 0 when FLOWRUN was given.
release_flowrun() {
    local root=$1
    if [[ -n "${FLOWRUN:-}" ]]; then
        flowrun="$FLOWRUN"
        built_here=0
    else
        local scratch=.build-release traits=(--traits Emulator)
        [[ ${EMULATOR:-1} != 0 ]] || scratch=.build-release-lean traits=(--disable-default-traits)
        echo "bench: building flowrun (release, --static-swift-stdlib, ${traits[*]})..." >&2
        (cd "$root" && swift build -c release --static-swift-stdlib "${traits[@]}" --scratch-path "$scratch" \
            --product flowrun) >&2
        flowrun="$root/$scratch/release/flowrun"
        built_here=1
    fi
    [[ -x "$flowrun" ]] || { echo "bench: $flowrun is not an executable" >&2; exit 2; }
    flowrun="$(cd "$(dirname "$flowrun")" && pwd)/$(basename "$flowrun")"
}
