; COMSTIME (after INMOS's occam benchmark): prefix, delta (its two outputs in PAR),
; successor and consumer over four internal channels. The consumer takes N values and
; brackets them with probes 1 and 2, so the trace gives the time per iteration.
N = 1000
chan_a = #80008000          ; prefix -> delta
chan_b = #80008004          ; delta -> successor
chan_c = #80008008          ; successor -> prefix
chan_d = #8000800C          ; delta -> consumer
ws_prefix = #80009000
ws_delta = #8000A000
ws_delta_child = #8000A800
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
    ldc prefix - s1
    ldc ws_prefix
    startp
s1: ldc delta - s2
    ldc ws_delta
    startp
s2: ldc succ - s3
    ldc ws_succ
    startp
s3:                         ; the main process is the consumer
    ldc 0
    stl 6                   ; loop index
    ldc N
    stl 7                   ; loop count
    ldc 0                   ; a probe: C = text length, B = text address, A = tag
    ldc 0
    ldc 1
    probe                   ; probe 1: the first value is asked for
cloop:
    ldlp 1
    ldc chan_d
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
    ldc chan_a
    ldc 0
    outword
ploop:
    ldlp 1
    ldc chan_c
    ldc 4
    in
    ldlp 1
    ldc chan_a
    ldc 4
    out
    j ploop

succ:
    ldlp 1
    ldc chan_b
    ldc 4
    in
    ldl 1
    adc 1
    stl 1
    ldlp 1
    ldc chan_c
    ldc 4
    out
    j succ

delta:
    ldlp 2
    ldc chan_a
    ldc 4
    in
    ldl 2                   ; the child outputs a copy
    ldc ws_delta_child
    stnl 1
    ldc 2                   ; PAR of two: the join block is W[0] (successor) and W[1] (count)
    stl 1
    ldc djoin - d1
    ldpi
d1: stl 0
    ldc child - d2
    ldc ws_delta_child
    startp
d2: ldlp 2
    ldc chan_b
    ldc 4
    out
    ldlp 0
    endp
djoin:
    j delta

child:
    ldc chan_d
    ldl 1
    outword
    ldc ws_delta
    endp
