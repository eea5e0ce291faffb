; A boot file's code (at most 255 bytes): boots on the root from the host's link 0, says hello
; through the iserver, boots node 1 over link 1 with a program that sends a word back, reports
; it, and exits. The transputer starts boot code with Wptr just after it: move it up first.
BUF = #80002000
LINK0_OUT = #80000000
LINK0_IN = #80000010
LINK1_OUT = #80000004
LINK1_IN = #80000014

    ajw 64
    ldc hello               ; SP.WRITE "hello, world\n" to the screen
    ldc LINK0_OUT
    ldc hello_end - hello
    out
    call reply
    ldc boot_block          ; boot node 1: its code's length, then the code
    ldc LINK1_OUT
    ldc child_end - boot_block
    out
    ldc BUF                 ; node 1 answers with a word
    ldc LINK1_IN
    ldc 4
    in
    ldc booted
    ldc LINK0_OUT
    ldc booted_end - booted
    out
    call reply
    ldc bye                 ; SP.EXIT with success
    ldc LINK0_OUT
    ldc bye_end - bye
    out
    call reply
    stopp
reply:                      ; the host's answer: its length, then the rest (6 bytes here)
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
    .byte 20, 0, 13, 1, 0, 0, 0, 13, 0, "hello, world", 10
hello_end:
booted:
    .byte 22, 0, 13, 1, 0, 0, 0, 14, 0, "node 1 booted", 10, 0
booted_end:
bye:
    .byte 6, 0, 35, #FF, #C9, #9A, #3B, 0
bye_end:
boot_block:
    .byte child_end - child_start
child_start:                ; node 1's program: answer on the link it booted from
    ajw 64
    ldc #80000008           ; link 2 goes back to node 0
    ldc 42
    outword
    stopp
child_end:
