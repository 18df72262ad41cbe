07-executor --items 60 --conns 4 --phases 1 --latency bimodal:0.2:60ms:2ms --read-timeout 30ms
