03-roundrobin | @ch03-bimodal
04-select | @ch04-bimodal
