//! The CRC64 Redis checksums RDB files and DUMP payloads with, and LZF, the compression of
//! long strings in both.

/// Redis's CRC64: Jones polynomial, reflected, no final xor.
pub fn crc64(data: &[u8]) -> u64 {
    let mut crc = 0u64;
    static TABLE: std::sync::OnceLock<[u64; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u64; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut c = i as u64;
            for _ in 0..8 {
                c = if c & 1 == 1 { (c >> 1) ^ 0x95AC_9329_AC4B_C9B5 } else { c >> 1 };
            }
            *slot = c;
        }
        t
    });
    for &b in data {
        crc = table[((crc ^ b as u64) & 0xFF) as usize] ^ (crc >> 8);
    }
    crc
}

/// LZF decompression to exactly `len` bytes (Redis refuses any other length).
pub fn lzf_decompress(input: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(len.min(input.len().saturating_mul(300)));
    let mut ip = 0;
    while ip < input.len() {
        let ctrl = input[ip] as usize;
        ip += 1;
        if ctrl < 32 {
            let run = input.get(ip..ip + ctrl + 1)?;
            if out.len() + run.len() > len {
                return None;
            }
            out.extend_from_slice(run);
            ip += ctrl + 1;
        } else {
            let mut n = ctrl >> 5;
            if n == 7 {
                n += *input.get(ip)? as usize;
                ip += 1;
            }
            let back = ((ctrl & 0x1F) << 8) + 1 + *input.get(ip)? as usize;
            ip += 1;
            if back > out.len() || out.len() + n + 2 > len {
                return None;
            }
            // Byte by byte: a reference may overlap what it produces (runs).
            let start = out.len() - back;
            for i in 0..n + 2 {
                out.push(out[start + i]);
            }
        }
    }
    (out.len() == len).then_some(out)
}

/// LZF compression as Redis's liblzf builds it (HLOG 16, VERY_FAST), so a DUMP is the same
/// bytes as redis-server's; `None` when the result would not fit in `out_len` bytes.
pub fn lzf_compress(input: &[u8], out_len: usize) -> Option<Vec<u8>> {
    const MAX_LIT: usize = 1 << 5;
    const MAX_OFF: usize = 1 << 13;
    const MAX_REF: usize = (1 << 8) + (1 << 3);
    let n = input.len();
    if n < 3 || out_len == 0 {
        return None;
    }
    let first = |ip: usize| ((input[ip] as u32) << 8) | input[ip + 1] as u32;
    let next = |h: u32, ip: usize| (h << 8) | input[ip + 2] as u32;
    let idx = |h: u32| ((h >> 8).wrapping_sub(h.wrapping_mul(5)) & 0xFFFF) as usize;
    // Positions by hash; 0 is "none" (liblzf never matches the input's first byte either).
    let mut htab = vec![0usize; 1 << 16];
    // Slack past `out_len`: the checks below mirror liblzf's, which stop before its end.
    let mut out = vec![0u8; out_len + 8];
    let (mut ip, mut op, mut lit) = (0usize, 1usize, 0usize);
    let mut h = first(0);
    while ip + 2 < n {
        h = next(h, ip);
        let slot = idx(h);
        let r = htab[slot];
        htab[slot] = ip;
        let matched = r != 0
            && r < ip
            && ip - r - 1 < MAX_OFF
            && input[r + 2] == input[ip + 2]
            && input[r] == input[ip]
            && input[r + 1] == input[ip + 1];
        if matched {
            let off = ip - r - 1;
            let mut len = 2;
            let maxlen = (n - ip - len).min(MAX_REF);
            if op + 4 >= out_len && op - usize::from(lit == 0) + 4 >= out_len {
                return None;
            }
            out[op - lit - 1] = (lit as u8).wrapping_sub(1);
            op -= usize::from(lit == 0);
            'extend: {
                if maxlen > 16 {
                    for _ in 0..16 {
                        len += 1;
                        if input[r + len] != input[ip + len] {
                            break 'extend;
                        }
                    }
                }
                loop {
                    len += 1;
                    if !(len < maxlen && input[r + len] == input[ip + len]) {
                        break;
                    }
                }
            }
            len -= 2;
            ip += 1;
            if len < 7 {
                out[op] = ((off >> 8) + (len << 5)) as u8;
                op += 1;
            } else {
                out[op] = ((off >> 8) + (7 << 5)) as u8;
                out[op + 1] = (len - 7) as u8;
                op += 2;
            }
            out[op] = off as u8;
            op += 2;
            lit = 0;
            ip += len + 1;
            if ip + 2 >= n {
                break;
            }
            ip -= 2;
            h = first(ip);
            h = next(h, ip);
            htab[idx(h)] = ip;
            ip += 1;
            h = next(h, ip);
            htab[idx(h)] = ip;
            ip += 1;
        } else {
            if op >= out_len {
                return None;
            }
            lit += 1;
            out[op] = input[ip];
            op += 1;
            ip += 1;
            if lit == MAX_LIT {
                out[op - lit - 1] = (lit - 1) as u8;
                lit = 0;
                op += 1;
            }
        }
    }
    if op + 3 > out_len {
        return None;
    }
    while ip < n {
        lit += 1;
        out[op] = input[ip];
        op += 1;
        ip += 1;
        if lit == MAX_LIT {
            out[op - lit - 1] = (lit - 1) as u8;
            lit = 0;
            op += 1;
        }
    }
    out[op - lit - 1] = (lit as u8).wrapping_sub(1);
    op -= usize::from(lit == 0);
    if op > out_len {
        return None;
    }
    out.truncate(op);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_is_redis_jones() {
        // The check value of Redis's crc64.c self test.
        assert_eq!(crc64(b"123456789"), 0xe9c6d914c4b8d9ca);
    }

    #[test]
    fn lzf_round_trips_and_refuses_garbage() {
        let text = b"#!lua name=lib\nredis.register_function('f', function() return redis.call('get', 'k') end)\nredis.register_function('g', function() return redis.call('get', 'k') end)".repeat(3);
        let packed = lzf_compress(&text, text.len() - 4).expect("compressible");
        assert!(packed.len() < text.len());
        assert_eq!(lzf_decompress(&packed, text.len()), Some(text.clone()));
        assert_eq!(lzf_decompress(&packed, text.len() + 1), None);
        assert_eq!(lzf_decompress(&[0xE0, 0xFF, 0x10], 100), None);
        assert_eq!(lzf_decompress(&[0x05, b'a'], 6), None);
        // Incompressible input does not fit in len - 4.
        let noise: Vec<u8> = (0..200u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        assert_eq!(lzf_compress(&noise, noise.len() - 4), None);
        // "aaaaaaaaaa": one literal 'a', then a back reference of 9 bytes at distance 1.
        let packed = [0x00, b'a', 0xe0, 0x00, 0x00];
        assert_eq!(lzf_decompress(&packed, 10).as_deref(), Some(&b"aaaaaaaaaa"[..]));
        assert_eq!(lzf_decompress(&packed, 9), None);
    }
}
