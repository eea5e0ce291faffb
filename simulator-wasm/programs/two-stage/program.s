; The program on the root of a pipe: reads a key from the host, boots the other nodes down the
; pipe with a worker that boots the next one with its own code, counts the nodes they report,
; prints "key K, NN nodes" and writes the same line to result.txt through the iserver, then
; exits. Links: 1 to the next node, 2 from the previous one.
BUF = #80005000
TMP = #80005100
OUT0 = #80000000
IN0 = #80000010
LINK1_OUT = #80000004
LINK1_IN = #80000014
    ldc #80030000
    gajw
    ldc getkey
    ldc OUT0
    ldc getkey_end - getkey
    out
    call reply
    ldc BUF+3               ; the key, into the message
    lb
    ldc msg_text+4
    sb
    ldc child_len           ; boot node 1 with the worker
    ldc LINK1_OUT
    ldc 1
    out
    ldc child_start
    ldc LINK1_OUT
    ldc child_end - child_start
    out
    ldc 14                  ; 14 more nodes after node 1
    ldc TMP
    stnl 0
    ldc TMP
    ldc LINK1_OUT
    ldc 4
    out
    ldc TMP                 ; how many nodes answered
    ldc LINK1_IN
    ldc 4
    in
    ldc TMP
    ldnl 0
    ldc 10
    div
    adc 48
    ldc msg_text+7
    sb
    ldc TMP
    ldnl 0
    ldc 10
    rem
    adc 48
    ldc msg_text+8
    sb
    ldc write_msg           ; the line to the screen
    ldc OUT0
    ldc write_msg_end - write_msg
    out
    call reply
    ldc open_out            ; and to result.txt
    ldc OUT0
    ldc open_out_end - open_out
    out
    call reply
    ldc BUF+3
    ldc write_file+3
    ldc 4
    move
    ldc msg_text
    ldc write_file+9
    ldc 16
    move
    ldc write_file
    ldc OUT0
    ldc write_file_end - write_file
    out
    call reply
    ldc bye
    ldc OUT0
    ldc bye_end - bye
    out
    stopp
reply:                      ; the host's answer: its length, then that many bytes at BUF+2
    ldc BUF
    ldc IN0
    ldc 2
    in
    ldc BUF+2
    ldc IN0
    ldc BUF
    lb
    in
    ret
getkey:
    .byte 6, 0, 30, 0, 0, 0, 0, 0
getkey_end:
write_msg:
    .byte 24, 0, 13, 1, 0, 0, 0, 16, 0
msg_text:
    .byte "key ", 0, ", ", 0, 0, " nodes", 10
    .byte 0
write_msg_end:
open_out:
    .byte 16, 0, 10, 10, 0, "result.txt", 1, 2, 0
open_out_end:
write_file:
    .byte 24, 0, 13, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
write_file_end:
bye:
    .byte 6, 0, 35, #FF, #C9, #9A, #3B, 0
bye_end:
child_len:
    .byte child_end - child_start
child_start:                ; the worker, booted at MemStart (#80000070 on a T800)
    ajw 64
    ldc #80003000           ; how many nodes are still to boot after this one
    ldc #80000018
    ldc 4
    in
    ldc #80003000
    ldnl 0
    cj last
    ldc child_end - child_start
    ldc #80003010
    sb
    ldc #80003010           ; boot the next node with this node's own code
    ldc #80000004
    ldc 1
    out
    ldc #80000070
    ldc #80000004
    ldc child_end - child_start
    out
    ldc #80003000
    ldnl 0
    adc -1
    ldc #80003004
    stnl 0
    ldc #80003004
    ldc #80000004
    ldc 4
    out
    ldc #80003008           ; the nodes after it, plus itself
    ldc #80000014
    ldc 4
    in
    ldc #80003008
    ldnl 0
    adc 1
    ldc #80003008
    stnl 0
    j answer
last:
    ldc 1
    ldc #80003008
    stnl 0
answer:
    ldc #80003008
    ldc #80000008
    ldc 4
    out
    stopp
child_end:
