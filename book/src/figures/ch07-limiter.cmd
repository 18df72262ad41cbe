06-scheduler --items 80 --conns 6 --latency bimodal:0.2:30ms:3ms
