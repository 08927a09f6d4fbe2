/* efi.h - the few UEFI types the EFI entry uses, written from the UEFI
 * specification 2.10 (sections 4 and 7: system table and boot services;
 * 9.1 loaded image; 10 device paths; 12.9 GOP; 13.4-13.5 file systems;
 * 13.2 LoadFile2).  Firmware calls use the Microsoft x64 convention. */
#ifndef EFI_H
#define EFI_H

#include <stdint.h>

#define EFIAPI __attribute__((ms_abi))

typedef uint64_t efi_status;
typedef void *efi_handle;
typedef uint16_t char16;

#define EFI_SUCCESS             0
#define EFI_ERROR_BIT           (1ull << 63)
#define EFI_LOAD_ERROR          (EFI_ERROR_BIT | 1)
#define EFI_INVALID_PARAMETER   (EFI_ERROR_BIT | 2)
#define EFI_UNSUPPORTED         (EFI_ERROR_BIT | 3)
#define EFI_BUFFER_TOO_SMALL    (EFI_ERROR_BIT | 5)
#define EFI_OUT_OF_RESOURCES    (EFI_ERROR_BIT | 9)
#define EFI_NOT_FOUND           (EFI_ERROR_BIT | 14)
#define EFI_CRC_ERROR           (EFI_ERROR_BIT | 27)

struct efi_guid {
	uint32_t a;
	uint16_t b, c;
	uint8_t d[8];
};

/* EFI_ALLOCATE_TYPE, EFI_MEMORY_TYPE */
enum { EFI_ALLOCATE_ANY_PAGES, EFI_ALLOCATE_MAX_ADDRESS, EFI_ALLOCATE_ADDRESS };
enum {
	EFI_RESERVED_MEMORY, EFI_LOADER_CODE, EFI_LOADER_DATA, EFI_BOOT_SERVICES_CODE,
	EFI_BOOT_SERVICES_DATA, EFI_RUNTIME_SERVICES_CODE, EFI_RUNTIME_SERVICES_DATA,
	EFI_CONVENTIONAL_MEMORY, EFI_UNUSABLE_MEMORY, EFI_ACPI_RECLAIM_MEMORY,
	EFI_ACPI_MEMORY_NVS, EFI_MEMORY_MAPPED_IO, EFI_MEMORY_MAPPED_IO_PORT_SPACE,
	EFI_PAL_CODE, EFI_PERSISTENT_MEMORY,
};
#define EFI_PAGE_SIZE 4096

struct efi_memory_descriptor {
	uint32_t type;
	uint32_t pad;
	uint64_t physical_start;
	uint64_t virtual_start;
	uint64_t pages;
	uint64_t attribute;
};

struct efi_table_header {
	uint64_t signature;
	uint32_t revision, header_size, crc32, reserved;
};

struct efi_simple_text_output {
	void *reset;
	efi_status (EFIAPI *output_string)(struct efi_simple_text_output *self, const char16 *s);
};

struct efi_device_path {
	uint8_t type, subtype;
	uint16_t length;        /* of this node, header included; may be unaligned */
} __attribute__((packed));

struct efi_boot_services {
	struct efi_table_header hdr;
	void *raise_tpl, *restore_tpl;
	efi_status (EFIAPI *allocate_pages)(int type, int memory_type, uint64_t pages, uint64_t *addr);
	efi_status (EFIAPI *free_pages)(uint64_t addr, uint64_t pages);
	efi_status (EFIAPI *get_memory_map)(uint64_t *size, struct efi_memory_descriptor *map, uint64_t *key,
					    uint64_t *desc_size, uint32_t *desc_version);
	void *allocate_pool, *free_pool;
	void *create_event, *set_timer, *wait_for_event, *signal_event, *close_event, *check_event;
	void *install_protocol_interface, *reinstall_protocol_interface, *uninstall_protocol_interface;
	efi_status (EFIAPI *handle_protocol)(efi_handle h, const struct efi_guid *protocol, void **iface);
	void *reserved, *register_protocol_notify, *locate_handle;
	efi_status (EFIAPI *locate_device_path)(const struct efi_guid *protocol, struct efi_device_path **path,
						efi_handle *device);
	void *install_configuration_table;
	void *load_image, *start_image, *exit, *unload_image;
	efi_status (EFIAPI *exit_boot_services)(efi_handle image, uint64_t map_key);
	void *get_next_monotonic_count, *stall, *set_watchdog_timer;
	void *connect_controller, *disconnect_controller;
	void *open_protocol, *close_protocol, *open_protocol_information;
	void *protocols_per_handle, *locate_handle_buffer;
	efi_status (EFIAPI *locate_protocol)(const struct efi_guid *protocol, void *registration, void **iface);
};

/* EFI_MEMORY_DESCRIPTOR.Attribute bits, also what the memory attribute
 * protocol (2.10, 37.7) gets, sets and clears (RP, XP, RO only). */
#define EFI_MEMORY_WB           0x8ull
#define EFI_MEMORY_XP           0x4000ull
#define EFI_MEMORY_RO           0x20000ull
#define EFI_MEMORY_SP           0x40000ull  /* "specific purpose": not for general use */

struct efi_memory_attribute {
	efi_status (EFIAPI *get)(struct efi_memory_attribute *self, uint64_t base, uint64_t length,
				 uint64_t *attributes);
	efi_status (EFIAPI *set)(struct efi_memory_attribute *self, uint64_t base, uint64_t length,
				 uint64_t attributes);
	efi_status (EFIAPI *clear)(struct efi_memory_attribute *self, uint64_t base, uint64_t length,
				   uint64_t attributes);
};

/* EFI_RNG_PROTOCOL (37.5): GetRNG with a NULL algorithm is the default one. */
struct efi_rng {
	void *get_info;
	efi_status (EFIAPI *get_rng)(struct efi_rng *self, const struct efi_guid *algorithm, uint64_t length,
				     uint8_t *value);
};

/* Runtime services (8): only GetVariable is called, before ExitBootServices. */
struct efi_runtime_services {
	struct efi_table_header hdr;
	void *get_time, *set_time, *get_wakeup_time, *set_wakeup_time;
	void *set_virtual_address_map, *convert_pointer;
	efi_status (EFIAPI *get_variable)(const char16 *name, const struct efi_guid *vendor, uint32_t *attributes,
					  uint64_t *size, void *data);
};

struct efi_configuration_table {
	struct efi_guid guid;
	void *table;
};

struct efi_system_table {
	struct efi_table_header hdr;
	char16 *firmware_vendor;
	uint32_t firmware_revision;
	efi_handle console_in_handle;
	void *con_in;
	efi_handle console_out_handle;
	struct efi_simple_text_output *con_out;
	efi_handle standard_error_handle;
	struct efi_simple_text_output *std_err;
	struct efi_runtime_services *runtime_services;
	struct efi_boot_services *boot_services;
	uint64_t table_entries;
	struct efi_configuration_table *configuration_table;
};

struct efi_loaded_image {
	uint32_t revision;
	efi_handle parent;
	struct efi_system_table *system_table;
	efi_handle device;
	struct efi_device_path *file_path;
	void *reserved;
	uint32_t load_options_size;     /* bytes */
	void *load_options;
	void *image_base;
	uint64_t image_size;
	uint32_t image_code_type, image_data_type;
	void *unload;
};

struct efi_load_file2 {
	efi_status (EFIAPI *load_file)(struct efi_load_file2 *self, struct efi_device_path *path,
				       uint8_t boot_policy, uint64_t *size, void *buffer);
};

struct efi_file {
	uint64_t revision;
	efi_status (EFIAPI *open)(struct efi_file *self, struct efi_file **out, const char16 *name,
				  uint64_t mode, uint64_t attributes);
	efi_status (EFIAPI *close)(struct efi_file *self);
	void *delete;
	efi_status (EFIAPI *read)(struct efi_file *self, uint64_t *size, void *buffer);
	void *write;
	efi_status (EFIAPI *get_position)(struct efi_file *self, uint64_t *position);
	efi_status (EFIAPI *set_position)(struct efi_file *self, uint64_t position);
};
#define EFI_FILE_MODE_READ 1
#define EFI_FILE_END_OF_FILE 0xffffffffffffffffull

struct efi_simple_file_system {
	uint64_t revision;
	efi_status (EFIAPI *open_volume)(struct efi_simple_file_system *self, struct efi_file **root);
};

struct efi_gop_mode_info {
	uint32_t version, width, height;
	uint32_t pixel_format;  /* 0 RGBX, 1 BGRX, 2 bit mask, 3 blt only */
	uint32_t red_mask, green_mask, blue_mask, reserved_mask;
	uint32_t pixels_per_scan_line;
};
#define EFI_GOP_PIXEL_RGBX 0
#define EFI_GOP_PIXEL_BGRX 1

struct efi_gop_mode {
	uint32_t max_mode, mode;
	struct efi_gop_mode_info *info;
	uint64_t info_size;
	uint64_t framebuffer_base;
	uint64_t framebuffer_size;
};

struct efi_gop {
	void *query_mode, *set_mode, *blt;
	struct efi_gop_mode *mode;
};

#endif
