; Link throughput: node 0 and node 1 of a pipe (0.1 - 1.2). Every node receives ROUNDS
; messages of LEN bytes on its link to the other and brackets them with probes 1 and 2; a
; child process sends the other way when BOTH is 1. Load with A = the node's number.
LEN = 4096
ROUNDS = 4
BUF_IN = #80003000
BUF_OUT = #80005000
CHILD_WS = #80008000

start:
    ajw -8
    stl 1                   ; W[1]: this node's number
    ldl 1
    cj zero
    ldc #80000008           ; node 1 sends on link 2 (and receives on link 2's input)
    stl 3
    j go
zero:
    ldc #80000004           ; node 0 sends on link 1
    stl 3
go:
    ldl 3                   ; the child's W[1]: the output channel, W[2]: its count
    ldc CHILD_WS
    stnl 1
    ldc ROUNDS
    ldc CHILD_WS
    stnl 2
    ldl 1                   ; node 0 always sends; node 1 only when BOTH
    eqc 0
    ldc BOTH
    or
    cj recv
    ldc child - here
    ldc CHILD_WS
    startp
here:
recv:
    ldl 1                   ; node 0 receives only when BOTH
    ldc BOTH
    or
    cj finish
    ldc 0
    ldc 0
    ldc 1
    probe
    ldc ROUNDS
    stl 2
loop_r:
    ldc BUF_IN
    ldl 3
    adc 16
    ldc LEN
    in
    ldl 2
    adc -1
    stl 2
    ldl 2
    cj done
    j loop_r
done:
    ldc 0
    ldc 0
    ldc 2
    probe
finish:
    stopp
child:
loop_s:
    ldc BUF_OUT
    ldl 1
    ldc LEN
    out
    ldl 2
    adc -1
    stl 2
    ldl 2
    cj cdone
    j loop_s
cdone:
    stopp
