; Keys and files through the iserver: reads a line from the keyboard (SP.GETS on stream 0:
; type it in the Keys box), says it back on the screen and writes it to answer.txt
; (SP.OPEN, SP.WRITE, SP.CLOSE), then exits. Every SP frame is its length, then its body.
BUF = #80005000
OUT0 = #80000000
IN0 = #80000010
    ajw -8
    ldc gets                ; a line from the keyboard: its length at BUF+3, text at BUF+5
    ldc OUT0
    ldc gets_end - gets
    out
    call reply
    ldc BUF+5               ; the text into both write requests
    ldc screen+20
    ldc BUF+3
    lb
    move
    ldc BUF+5
    ldc file+9
    ldc BUF+3
    lb
    move
    ldc BUF+3               ; their counts: "you typed: " plus the line, and the line
    lb
    adc 11
    ldc screen+7
    sb
    ldc BUF+3
    lb
    ldc file+7
    sb
    ldc screen
    ldc OUT0
    ldc screen_end - screen
    out
    call reply
    ldc open                ; answer.txt, for output
    ldc OUT0
    ldc open_end - open
    out
    call reply
    ldc BUF+3               ; its stream id into the write and close requests
    ldc file+3
    ldc 4
    move
    ldc BUF+3
    ldc close+3
    ldc 4
    move
    ldc file
    ldc OUT0
    ldc file_end - file
    out
    call reply
    ldc close
    ldc OUT0
    ldc close_end - close
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
gets:                       ; SP.GETS, stream 0, at most 60 bytes
    .byte 8, 0, 14, 0, 0, 0, 0, 60, 0, 0
gets_end:
screen:                     ; SP.WRITE, stream 1: "you typed: " and up to 60 bytes
    .byte 78, 0, 13, 1, 0, 0, 0, 0, 0, "you typed: "
    .byte 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .byte 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
screen_end:
open:                       ; SP.OPEN "answer.txt", binary, for output
    .byte 16, 0, 10, 10, 0, "answer.txt", 1, 2, 0
open_end:
file:                       ; SP.WRITE on the file's stream: up to 60 bytes (and a pad byte)
    .byte 68, 0, 13, 0, 0, 0, 0, 0, 0
    .byte 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .byte 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    .byte 0
file_end:
close:                      ; SP.CLOSE
    .byte 6, 0, 11, 0, 0, 0, 0, 0
close_end:
bye:
    .byte 6, 0, 35, #FF, #C9, #9A, #3B, 0
bye_end:
