; Copies the first 8 bytes of in.txt to out/copy.txt through the iserver, then exits.
BUF = #80004000
OUT0 = #80000000
IN0 = #80000010
    ajw -8
    ldc open_in
    ldc OUT0
    ldc open_in_end - open_in
    out
    call reply
    ldc BUF+3               ; the stream id into the read request
    ldc read_req+3
    ldc 4
    move
    ldc read_req
    ldc OUT0
    ldc read_req_end - read_req
    out
    call reply
    ldc BUF+5               ; the 8 bytes read into the write request
    ldc write_req+9
    ldc 8
    move
    ldc open_out
    ldc OUT0
    ldc open_out_end - open_out
    out
    call reply
    ldc BUF+3
    ldc write_req+3
    ldc 4
    move
    ldc write_req
    ldc OUT0
    ldc write_req_end - write_req
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
open_in:
    .byte 12, 0, 10, 6, 0, "in.txt", 1, 1, 0
open_in_end:
read_req:
    .byte 8, 0, 12, 0, 0, 0, 0, 8, 0, 0
read_req_end:
open_out:
    .byte 18, 0, 10, 12, 0, "out/copy.txt", 1, 2, 0
open_out_end:
write_req:
    .byte 16, 0, 13, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
write_req_end:
bye:
    .byte 6, 0, 35, #FF, #C9, #9A, #3B, 0
bye_end:
