/* gpusim_lib.c - placeholder until gpusim is written. */
int gpusim_lib_placeholder(void);
int gpusim_lib_placeholder(void) { return 0; }
