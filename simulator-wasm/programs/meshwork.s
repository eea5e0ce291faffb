; A mesh workload: on a WIDTH-wide mesh every node but the last of its row computes and sends
; a word east (link 1) ROUNDS times, from a child process; every node but the first receives
; from the west (link 3) and computes after each word. Load with A = the node's number.
ROUNDS = 20
WORK = 200
CHILD_WS = #80008000
BUF = #80003000

start:
    ajw -8
    stl 1                   ; W[1]: node number
    ldl 1
    ldc WIDTH
    rem
    stl 2                   ; W[2]: x
    ldc WIDTH - 1
    ldl 2
    gt                      ; x < WIDTH - 1: a neighbour to the east
    cj receive
    ldc ROUNDS
    ldc CHILD_WS
    stnl 1
    ldc sender - spawned
    ldc CHILD_WS
    startp
spawned:
receive:
    ldl 2
    cj finish               ; x = 0: nobody to the west
    ldc ROUNDS
    stl 4
rloop:
    ldc BUF
    ldc #8000001C           ; link 3 input
    ldc 4
    in
    ldc WORK
    stl 3
rwork:
    ldl 3
    adc -1
    stl 3
    ldl 3
    cj rdone
    j rwork
rdone:
    ldl 4
    adc -1
    stl 4
    ldl 4
    cj finish
    j rloop
finish:
    ldc 4                   ; C: the text's length
    ldc text                ; B: its address
    ldc 7                   ; A: the tag
    probe
    stopp
text:
    .byte "done"
    .align 4
sender:
    ldc WORK
    stl 3
swork:
    ldl 3
    adc -1
    stl 3
    ldl 3
    cj sdone
    j swork
sdone:
    ldc #80000004           ; link 1 output
    ldl 1
    outword
    ldl 1
    adc -1
    stl 1
    ldl 1
    cj send
    j sender
send:
    stopp
