04-select --items 4000 --conns 100 --latency bimodal:0.1:50ms:2ms --faults nak=0.05,ko=0.05,drop=0.02,garbage=0.02,trickle=0.1
