/* scenario.c - placeholder until gpusim is written. */
int gpusim_placeholder(void);
int gpusim_placeholder(void) { return 0; }
