; The primary bootstrap (a boot block of at most 255 bytes, loaded at MemStart from the host's
; link): reads the secondary loader's length (a word) and code from the same link into SEC and
; calls it.
IN0 = #80000010
SEC = #80010000
LEN = #80004ff0
    ajw 64
    ldc LEN
    ldc IN0
    ldc 4
    in
    ldc SEC
    ldc IN0
    ldc LEN
    ldnl 0
    in
    ldc SEC
    gcall
