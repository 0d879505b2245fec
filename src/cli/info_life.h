/* `hetrace info`'s life lines of a process (info_life.c). */
#ifndef HT_INFO_LIFE_H
#define HT_INFO_LIFE_H

struct ht_life;

void ht_info_life_print(const struct ht_life *l, int exited);

#endif
