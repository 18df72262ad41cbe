04-select --items 400 --conns 20 --latency bimodal:0.1:50ms:2ms
