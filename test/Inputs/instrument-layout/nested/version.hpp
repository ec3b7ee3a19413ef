#pragma once
#define NESTED_VERSION 1
