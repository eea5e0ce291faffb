; Hello through the iserver on a pipe of two, loaded into both nodes (A = the node's number).
; Node 1 sends node 0 a word over their link; node 0 waits for it, writes two lines to the
; host's screen (SP.WRITE frames: length, tag 13, stream 1, count, text) and exits (SP.EXIT).
BUF = #80002000
LINK0_OUT = #80000000
LINK0_IN = #80000010
LINK1_IN = #80000014
LINK2_OUT = #80000008

    ajw -8
    stl 1
    ldl 1
    cj root
    ldc LINK2_OUT           ; node 1: one word to node 0
    ldc 42
    outword
    stopp
root:
    ldc BUF
    ldc LINK1_IN
    ldc 4
    in
    ldc hello
    ldc LINK0_OUT
    ldc hello_end - hello
    out
    call reply
    ldc heard
    ldc LINK0_OUT
    ldc heard_end - heard
    out
    call reply
    ldc bye
    ldc LINK0_OUT
    ldc bye_end - bye
    out
    stopp
reply:                      ; the host's answer: its length, then 6 bytes
    ldc BUF
    ldc LINK0_IN
    ldc 2
    in
    ldc BUF
    ldc LINK0_IN
    ldc 6
    in
    ret
hello:
    .byte 26, 0, 13, 1, 0, 0, 0, 19, 0, "hello from T800 #0", 10
hello_end:
heard:
    .byte 26, 0, 13, 1, 0, 0, 0, 19, 0, "node 1 sent a word", 10
heard_end:
bye:
    .byte 6, 0, 35, #FF, #C9, #9A, #3B, 0
bye_end:
