/*
 * A starter bot in C (C99 plus POSIX getline), standard library only.
 *
 * It raises pocket pairs before the flop, checks when checking is free, calls small bets
 * (at most a quarter of the pot, or one big blind) and folds to anything bigger. In
 * five-card draw it throws away the cards that pair nothing.
 *
 * Protocol: one JSON object per line on stdin; reply on stdout with one JSON line to every
 * message that has a "seq" (hello, act, draw), echoing that seq, and flush each line.
 *
 * Reading JSON: a real bot would use a JSON library. To stay dependency-free this one has
 * a tiny reader that finds a key of an object, skipping nested values; enough for the
 * arena's messages, whose top-level keys are unique.
 *
 * Build: gcc -O2 -o build/bot bot.c   (the manifest bot.toml does this)
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "c pairs"
#define MAX_CARDS 7

typedef struct {
    char rank[4];
    char suit[10];
} Card;

static const char *skip_space(const char *p) {
    while (*p && isspace((unsigned char)*p)) p++;
    return p;
}

/* Returns the position just after the JSON value at p, or NULL if it is malformed. */
static const char *skip_value(const char *p) {
    p = skip_space(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++) {
            if (*p == '\\' && p[1]) p++;
        }
        return *p ? p + 1 : NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                p = skip_value(p);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && !isspace((unsigned char)*p)) p++;
    return p;
}

/* The value of `key` in the object that starts at `object`, or NULL if it has none. */
static const char *find_key(const char *object, const char *key) {
    size_t key_length = strlen(key);
    const char *p = skip_space(object);
    if (*p != '{') return NULL;
    p = skip_space(p + 1);
    while (*p == '"') {
        const char *name = p + 1;
        const char *end = skip_value(p);
        if (!end) return NULL;
        int is_match = (size_t)(end - 1 - name) == key_length &&
                       strncmp(name, key, key_length) == 0;
        p = skip_space(end);
        if (*p != ':') return NULL;
        p = skip_space(p + 1);
        if (is_match) return p;
        p = skip_value(p);
        if (!p) return NULL;
        p = skip_space(p);
        if (*p != ',') return NULL;
        p = skip_space(p + 1);
    }
    return NULL;
}

static long get_number(const char *object, const char *key, long fallback) {
    const char *value = find_key(object, key);
    if (!value || !(*value == '-' || isdigit((unsigned char)*value))) return fallback;
    return strtol(value, NULL, 10);
}

/* Copies a string value (the arena's strings here need no unescaping). */
static int get_string(const char *object, const char *key, char *out, size_t size) {
    const char *value = find_key(object, key);
    out[0] = '\0';
    if (!value || *value != '"') return 0;
    const char *end = strchr(value + 1, '"');
    if (!end || (size_t)(end - value - 1) >= size) return 0;
    memcpy(out, value + 1, (size_t)(end - value - 1));
    out[end - value - 1] = '\0';
    return 1;
}

/* Is the string "name" one of the items of the array `key`? */
static int array_has(const char *object, const char *key, const char *name) {
    const char *value = find_key(object, key);
    if (!value || *value != '[') return 0;
    const char *end = skip_value(value);
    char quoted[32];
    snprintf(quoted, sizeof quoted, "\"%s\"", name);
    const char *hit = strstr(value, quoted);
    return hit && end && hit < end;
}

/* Reads the array of card objects `key`; returns how many cards were read. */
static int get_cards(const char *object, const char *key, Card *cards, int max) {
    const char *p = find_key(object, key);
    int count = 0;
    if (!p || *p != '[') return 0;
    p = skip_space(p + 1);
    while (*p == '{' && count < max) {
        get_string(p, "rank", cards[count].rank, sizeof cards[count].rank);
        get_string(p, "suit", cards[count].suit, sizeof cards[count].suit);
        count++;
        p = skip_value(p);
        if (!p) break;
        p = skip_space(p);
        if (*p == ',') p = skip_space(p + 1);
    }
    return count;
}

static int rank_value(const Card *card) {
    static const char *ranks[] = {"2", "3", "4", "5", "6", "7", "8", "9", "10",
                                  "J", "Q", "K", "A"};
    for (int i = 0; i < 13; i++) {
        if (strcmp(card->rank, ranks[i]) == 0) return i + 2;
    }
    return 0;
}

static void reply_action(long seq, const char *action, long amount) {
    if (amount >= 0) {
        printf("{\"type\":\"action\",\"seq\":%ld,\"action\":\"%s\",\"amount\":%ld}\n", seq,
               action, amount);
    } else {
        printf("{\"type\":\"action\",\"seq\":%ld,\"action\":\"%s\"}\n", seq, action);
    }
    fflush(stdout);
}

static void act(const char *message) {
    long seq = get_number(message, "seq", 0);
    long to_call = get_number(message, "to_call", 0);
    long pot = get_number(message, "pot_total", 0);
    long big_blind = get_number(message, "big_blind", 1);
    Card hole[MAX_CARDS], board[5];
    int hole_count = get_cards(message, "hole_cards", hole, MAX_CARDS);
    int board_count = get_cards(message, "community_cards", board, 5);

    int is_pocket_pair = hole_count == 2 && board_count == 0 &&
                         rank_value(&hole[0]) == rank_value(&hole[1]);
    if (is_pocket_pair && array_has(message, "legal_actions", "RAISE")) {
        reply_action(seq, "RAISE", get_number(message, "min_raise_to", 0));
    } else if (array_has(message, "legal_actions", "CHECK")) {
        reply_action(seq, "CHECK", -1);
    } else if ((to_call * 4 <= pot || to_call <= big_blind) &&
               array_has(message, "legal_actions", "CALL")) {
        reply_action(seq, "CALL", -1);
    } else {
        reply_action(seq, "FOLD", -1);
    }
}

static int by_rank(const void *a, const void *b) {
    return rank_value((const Card *)a) - rank_value((const Card *)b);
}

static void draw(const char *message) {
    long seq = get_number(message, "seq", 0);
    long max_discards = get_number(message, "max_discards", 5);
    Card hand[MAX_CARDS], lonely[MAX_CARDS];
    int count = get_cards(message, "hole_cards", hand, MAX_CARDS);
    int lonely_count = 0;
    for (int i = 0; i < count; i++) {
        int same = 0;
        for (int j = 0; j < count; j++) same += rank_value(&hand[i]) == rank_value(&hand[j]);
        if (same == 1) lonely[lonely_count++] = hand[i];
    }
    qsort(lonely, (size_t)lonely_count, sizeof lonely[0], by_rank);
    if (lonely_count == count && lonely_count > 0) lonely_count--; /* keep the high card */
    if (lonely_count > max_discards) lonely_count = (int)max_discards;
    printf("{\"type\":\"discard\",\"seq\":%ld,\"cards\":[", seq);
    for (int i = 0; i < lonely_count; i++) {
        printf("%s{\"rank\":\"%s\",\"suit\":\"%s\"}", i ? "," : "", lonely[i].rank,
               lonely[i].suit);
    }
    printf("]}\n");
    fflush(stdout);
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    char type[32];
    while (getline(&line, &capacity, stdin) != -1) {
        if (!get_string(line, "type", type, sizeof type)) continue; /* not for us */
        if (strcmp(type, "hello") == 0) {
            printf("{\"type\":\"ready\",\"seq\":%ld,\"name\":\"%s\",\"protocol_version\":1}\n",
                   get_number(line, "seq", 0), NAME);
            fflush(stdout);
        } else if (strcmp(type, "act") == 0) {
            act(line);
        } else if (strcmp(type, "draw") == 0) {
            draw(line);
        } else if (strcmp(type, "error") == 0) {
            fprintf(stderr, "arena rejected my reply: %s", line);
        } else if (strcmp(type, "match_end") == 0) {
            break;
        }
        /* hand_start, hand_end and unknown types need no answer. */
    }
    free(line);
    return 0;
}
