constant 5 ms | @ch03-fixed
bimodal, 10% at 50 ms | @ch03-bimodal
