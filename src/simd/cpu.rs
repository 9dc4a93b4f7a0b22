//! Whether BMI2's `pext` is fast on this processor, from its vendor and family (CPUID): BMI2
//! says only that `pext` exists. AMD's cores before Zen 3 (family 0x15 Excavator, 0x17 Zen 1
//! and 2, and Hygon's Zen-based 0x18) run it in microcode, tens of cycles and more the more
//! bits the mask has, slower than the portable gather; Intel's (Haswell on) and AMD's from Zen 3
//! (family 0x19 on) run it in 3 cycles.
//!
//! Invariant: this only refuses `pext`; whether the processor has BMI2 at all is
//! `is_x86_feature_detected!`'s to say (`simd::detected` asks both).

/// Whether `pext` is fast on a processor of this CPUID vendor string and family (`family`: the
/// displayed family, base plus extended, as `family_of` reads it).
pub fn pext_is_fast(vendor: &[u8; 12], family: u32) -> bool {
    let amd_like = vendor == b"AuthenticAMD" || vendor == b"HygonGenuine";
    !(amd_like && family < 0x19)
}

/// The displayed family from CPUID leaf 1's EAX: the base family (bits 8-11), plus the extended
/// family (bits 20-27) where the base is 0xF.
pub fn family_of(eax: u32) -> u32 {
    let base = (eax >> 8) & 0xF;
    if base == 0xF {
        base + ((eax >> 20) & 0xFF)
    } else {
        base
    }
}

/// `pext_is_fast` for the processor this runs on.
#[cfg(target_arch = "x86_64")]
pub fn pext_fast_here() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86-64 processor; leaves 0 and 1 always. (`unsafe` for
    // toolchains before `__cpuid` became a safe function.)
    #[allow(unused_unsafe)]
    let (id, info) = unsafe { (__cpuid(0), __cpuid(1)) };
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&id.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&id.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&id.ecx.to_le_bytes());
    pext_is_fast(&vendor, family_of(info.eax))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_read_from_cpuid() {
        // Zen 2 (Rome, 0x00830F10), Zen 3 (Milan, 0x00A00F11), Zen 1 (Naples, 0x00800F12),
        // Hygon Dhyana (0x00900F01), Intel Skylake (0x00050654).
        assert_eq!(family_of(0x0083_0F10), 0x17);
        assert_eq!(family_of(0x00A0_0F11), 0x19);
        assert_eq!(family_of(0x0080_0F12), 0x17);
        assert_eq!(family_of(0x0090_0F01), 0x18);
        assert_eq!(family_of(0x0005_0654), 6);
    }

    #[test]
    fn pext_is_slow_on_amd_before_zen3_only() {
        assert!(!pext_is_fast(b"AuthenticAMD", 0x17), "Zen 1/2");
        assert!(!pext_is_fast(b"AuthenticAMD", 0x15), "Excavator");
        assert!(!pext_is_fast(b"HygonGenuine", 0x18), "Dhyana");
        assert!(pext_is_fast(b"AuthenticAMD", 0x19), "Zen 3/4");
        assert!(pext_is_fast(b"AuthenticAMD", 0x1A), "Zen 5");
        assert!(pext_is_fast(b"GenuineIntel", 6));
    }
}
