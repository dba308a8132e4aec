/*
 * The floor for `flowrun lint`: a bare libyaml event loop over each file, nothing else.
 *
 * Usage: yaml_floor FILE...      (files as arguments)
 *        yaml_floor - < LIST     (one path per line on standard input)
 *
 * Each file is read into memory, then parsed with yaml_parser_parse until YAML_STREAM_END_EVENT,
 * deleting every event. Prints "files=N bytes=B events=E" and exits 0, or 1 if a file could not
 * be read or parsed (the error is printed to stderr).
 *
 * Build: cc -O2 -o yaml_floor yaml_floor.c $(pkg-config --cflags --libs yaml-0.1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static unsigned char *buffer;
static size_t capacity;
static unsigned long long total_files, total_bytes, total_events;

static int parse_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        return 1;
    }
    size_t length = 0;
    for (;;) {
        if (length == capacity) {
            capacity = capacity ? capacity * 2 : 1 << 16;
            buffer = realloc(buffer, capacity);
            if (!buffer) {
                fprintf(stderr, "out of memory\n");
                exit(2);
            }
        }
        size_t got = fread(buffer + length, 1, capacity - length, file);
        length += got;
        if (got == 0) break;
    }
    int read_error = ferror(file);
    fclose(file);
    if (read_error) {
        fprintf(stderr, "%s: read error\n", path);
        return 1;
    }

    yaml_parser_t parser;
    yaml_event_t event;
    if (!yaml_parser_initialize(&parser)) {
        fprintf(stderr, "%s: cannot initialize the parser\n", path);
        return 1;
    }
    yaml_parser_set_input_string(&parser, buffer, length);
    int status = 0;
    for (;;) {
        if (!yaml_parser_parse(&parser, &event)) {
            fprintf(stderr, "%s:%lu:%lu: %s\n", path, (unsigned long)parser.problem_mark.line + 1,
                    (unsigned long)parser.problem_mark.column + 1, parser.problem ? parser.problem : "parse error");
            status = 1;
            break;
        }
        total_events++;
        yaml_event_type_t type = event.type;
        yaml_event_delete(&event);
        if (type == YAML_STREAM_END_EVENT) break;
    }
    yaml_parser_delete(&parser);
    total_files++;
    total_bytes += length;
    return status;
}

int main(int argc, char **argv) {
    int failures = 0;
    if (argc == 2 && strcmp(argv[1], "-") == 0) {
        char *line = NULL;
        size_t size = 0;
        ssize_t n;
        while ((n = getline(&line, &size, stdin)) != -1) {
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
            if (n == 0) continue;
            failures += parse_file(line);
        }
        free(line);
    } else {
        for (int i = 1; i < argc; i++) failures += parse_file(argv[i]);
    }
    free(buffer);
    printf("files=%llu bytes=%llu events=%llu\n", total_files, total_bytes, total_events);
    return failures ? 1 : 0;
}
