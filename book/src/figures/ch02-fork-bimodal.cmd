02-fork --items 200 --conns 8 --latency bimodal:0.1:50ms:5ms
