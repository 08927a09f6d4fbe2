# ovmf.sh - where Debian's ovmf package puts the UEFI firmware for QEMU
# (sourced, bash).  The 4 MiB build: code read-only, and the variable
# store copied per boot so that no boot sees another's boot entries.
OVMF_CODE=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}

# ovmf_missing: why OVMF cannot run here, or nothing (status 1) if it can.
ovmf_missing() {
	[ -r "$OVMF_CODE" ] && [ -r "$OVMF_VARS" ] && return 1
	echo "no OVMF at $OVMF_CODE (Debian package ovmf)"
}

# ovmf_vars_copy FILE: a fresh variable store.
ovmf_vars_copy() {
	cp "$OVMF_VARS" "$1"
}
