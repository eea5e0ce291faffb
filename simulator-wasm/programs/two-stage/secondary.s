; The secondary loader, as INMOS's: checks the FPU with fptesterr (A = 1: no error; kept at
; FPOK for whoever wants to know), then reads the program's length (a word) and code into PROG
; and calls it.
IN0 = #80000010
PROG = #80020000
LEN = #80004ff4
FPOK = #80004ff8
    fptesterr
    ldc FPOK
    stnl 0
    ldc LEN
    ldc IN0
    ldc 4
    in
    ldc PROG
    ldc IN0
    ldc LEN
    ldnl 0
    in
    ldc PROG
    gcall
