; A Whetstone-style double kernel for the T800's FPU: ROUNDS rounds of a Horner step, a
; division and a square root (the three fpentry steps), then exit through the host.
ROUNDS = 200000
X = #80004000
    ajw -8
    ldc 0
    stl 1
    ldc ROUNDS
    stl 2
    ldc x0
    fpldnldb
    ldc X
    fpstnldb
loop:
    ldc X
    fpldnldb
    ldc a
    fpldnlmuldb
    ldc b
    fpldnladddb
    fpdup
    fpusqrtfirst
    fpusqrtstep
    fpusqrtstep
    fpusqrtlast
    fpadd
    ldc c
    fpldnldb
    fpdiv
    ldc X
    fpstnldb
    ldlp 1
    ldc done - loop
    lend
done:
    stopp
    .align 8
x0: .word #00000000, #3FF00000
a: .word #D916872B, #3FEFF7CE
b: .word #D2F1A9FC, #3F50624D
c: .word #DB8BAC71, #3FF00068
