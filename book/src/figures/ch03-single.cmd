03-roundrobin --items 400 --conns 20 --latency 5ms --phases 1
