int group_a(void);
int group_b(void) { return group_a() * 10; }
