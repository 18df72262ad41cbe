03-roundrobin --items 400 --conns 20 --latency 5ms --faults nak=0.05,ko=0.05,drop=0.02,garbage=0.02
