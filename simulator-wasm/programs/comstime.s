; COMSTIME (after INMOS's occam benchmark): prefix, delta (its two outputs in PAR),
; successor and consumer over four internal channels. The consumer takes N values and
; brackets them with probes 1 and 2, so the trace gives the time per iteration.
;
; As compiled occam does, each process keeps the addresses it uses (its channels, its
; child's workspace) in its own workspace and loads them with one-byte `ldl`, so the loops
; carry no long constants.
N = 1000
chan_a = #80008000          ; prefix -> delta
chan_b = #80008004          ; delta -> successor
chan_c = #80008008          ; successor -> prefix
chan_d = #8000800C          ; delta -> consumer
ws_prefix = #80009000
ws_delta = #8000A000
ws_child = #8000A800
ws_succ = #8000B000

main:
    mint
    ldc chan_a
    stnl 0
    mint
    ldc chan_b
    stnl 0
    mint
    ldc chan_c
    stnl 0
    mint
    ldc chan_d
    stnl 0
    ldc chan_c              ; prefix: W[3] input, W[4] output
    ldc ws_prefix
    stnl 3
    ldc chan_a
    ldc ws_prefix
    stnl 4
    ldc chan_b              ; successor: W[3] input, W[4] output
    ldc ws_succ
    stnl 3
    ldc chan_c
    ldc ws_succ
    stnl 4
    ldc chan_a              ; delta: W[3] input, W[4] and W[6] outputs, W[5] its child
    ldc ws_delta
    stnl 3
    ldc chan_b
    ldc ws_delta
    stnl 4
    ldc ws_child
    ldc ws_delta
    stnl 5
    ldc chan_d
    ldc ws_delta
    stnl 6
    ldc chan_d              ; the child: W[2] output, W[3] its parent's join block
    ldc ws_child
    stnl 2
    ldc ws_delta
    ldc ws_child
    stnl 3
    ldc chan_d              ; the consumer (this process): W[3] input
    stl 3
    ldc prefix - s1
    ldc ws_prefix
    startp
s1: ldc delta - s2
    ldc ws_delta
    startp
s2: ldc succ - s3
    ldc ws_succ
    startp
s3: ldc 0
    stl 6                   ; loop index
    ldc N
    stl 7                   ; loop count
    ldc 0                   ; a probe: C = text length, B = text address, A = tag
    ldc 0
    ldc 1
    probe                   ; probe 1: the first value is asked for
cloop:
    ldlp 1
    ldl 3
    ldc 4
    in
    ldlp 6
    ldc cend - cloop
    lend
cend:
    ldc 0
    ldc 0
    ldc 2
    probe                   ; probe 2: N values taken
    stopp

prefix:
    ldl 4
    ldc 0
    outword
ploop:
    ldlp 1
    ldl 3
    ldc 4
    in
    ldlp 1
    ldl 4
    ldc 4
    out
    j ploop

succ:
    ldlp 1
    ldl 3
    ldc 4
    in
    ldl 1
    adc 1
    stl 1
    ldlp 1
    ldl 4
    ldc 4
    out
    j succ

delta:
    ldlp 2
    ldl 3
    ldc 4
    in
    ldl 2                   ; the child outputs a copy
    ldl 5
    stnl 1
    ldc 2                   ; PAR of two: the join block is W[0] (successor) and W[1] (count)
    stl 1
    ldc djoin - d1
    ldpi
d1: stl 0
    ldc child - d2
    ldl 5
    startp
d2: ldlp 2
    ldl 4
    ldc 4
    out
    ldlp 0
    endp
djoin:
    j delta

child:
    ldl 2
    ldl 1
    outword
    ldl 3
    endp
