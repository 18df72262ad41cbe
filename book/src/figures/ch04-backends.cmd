select(2) | 04-select --backend select --items 2000 --conns 100 --latency 5ms
poll(2) | 04-select --backend poll --items 2000 --conns 100 --latency 5ms
epoll | 04-select --backend epoll --items 2000 --conns 100 --latency 5ms
