# config: see config/config.h
